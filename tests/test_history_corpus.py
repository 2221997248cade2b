"""The history corpus's manifest (the pairs themselves are measured by `python
bench/history.py`: the repositories are other people's code, rebuilt from local snapshots)."""

from __future__ import annotations

import re
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

from history_corpus import KINDS, VERDICTS, load_pairs  # noqa: E402

# Kept for independent evaluation (issue 26): never mined into this corpus.
RESERVED = {
    "Airlectric/Amalitech-DEM05-Big-Data_Real-Time-Data-Ingestion-Using-Spark-Structured-Streaming-PostgreSQL",
    "ArthurKretzer/streaming-pipeline", "Bureyz/lakeflow-retail-pipelines",
    "ChienNguyen34/Water-stream-kafka-spark-grafana-influx",
    "Divya-yaramala/crypto-streaming-pipeline",
    "FranciscoJavierCotos/marketpulse-spark-streaming", "ItsLewis-DE/fraudguard-streaming-pipeline",
    "LearningJournal/Spark-Streaming-In-Python",
    "MichalxPZ/Spark-Structured-Streaming---Netflix-Prize-Data",
    "Mina2kamel/stock-market-etl-kafka-spark", "Mmodarre/Delta-Live-Tables-Meta-Lean",
    "PSURI1894/Lakehouse-on-Databricks-with-Unity-Catalog-and-Delta-Live-Tables",
    "SUDHA489/DataEngineer_Training", "Scientialibera/kafka-spark-app",
    "anayyar82/hl7-streaming-pipeline", "andrijdemianczuk/nursing_callout", "ankurchavda/streamify",
    "apache/spark", "bartosz25/spark-playground",
    "codsalah/Retail-Spark-Streaming-with-Kafka-Cassandra", "databricks-demos/dbdemos-notebooks",
    "databricks/delta-live-tables-notebooks", "denisefavila/surge-pricing-kafka-spark",
    "egalantebrightspot/spark-delta-streaming-pipeline", "feast-dev/feast",
    "guidok91/spark-structured-streaming-kafka", "gyan42/spark-streaming-playground",
    "keyr-code/spark-streaming-sales", "lechihoang/binance-market-streaming-pipeline",
    "liatdavid2/kafka-spark-streaming-pipeline",
    "luanmorenommaciel/dbx-lakeflow-psp-payment-system",
    "maksimk2/automated-call-processing",
    "rahulmandaviya123/databricks_azure_data_engineering_project", "sdaberdaku/kafka2delta",
    "tructd123/End-to-end-music-streaming-pipeline",
}
RESERVED_OWNERS = {"databricks-industry-solutions", "derar-alhussein"}


def test_enough_pairs_from_enough_repositories() -> None:
    pairs = load_pairs()
    assert len(pairs) >= 150
    assert len({p["repo"] for p in pairs}) >= 25
    expected = Counter(p["expected"] for p in pairs)
    assert expected["compatible"] >= 50 and expected["incompatible"] >= 20


def test_every_pair_is_recorded_whole() -> None:
    pairs = load_pairs()
    ids = [p["id"] for p in pairs]
    assert len(ids) == len(set(ids))
    for p in pairs:
        assert p["expected"] in VERDICTS and p["why"].strip() and p["change"].strip(), p["id"]
        assert p["kind"] in KINDS, p["id"]
        assert re.fullmatch(r"[0-9a-f]{40}", p["parent"]), p["id"]
        assert re.fullmatch(r"[0-9a-f]{40}", p["commit"]), p["id"]
        assert p["parent"] != p["commit"], p["id"]
        assert re.fullmatch(r"[0-9a-f]{64}", p["old_sha256"]), p["id"]
        assert re.fullmatch(r"[0-9a-f]{64}", p["new_sha256"]), p["id"]
        assert p["path"] in p["files"] or p.get("old_path") in p["files"] or p["files"], p["id"]


def test_no_reserved_repository_is_mined() -> None:
    for p in load_pairs():
        assert p["repo"] not in RESERVED, p["id"]
        assert p["repo"].split("/")[0] not in RESERVED_OWNERS, p["id"]


def test_at_most_twelve_pairs_a_repository() -> None:
    counts = Counter(p["repo"] for p in load_pairs())
    assert max(counts.values()) <= 12, counts.most_common(3)
