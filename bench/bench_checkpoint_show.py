"""Benchmark: `streamlint checkpoint show` on a checkpoint with many retained log files.

Usage: python bench/bench_checkpoint_show.py [--batches N] [--runs N] [--keep DIR]
Builds a checkpoint in a temporary directory (unless --keep names one) shaped like a
long-running Kafka aggregation: `offsets/` and `commits/` with N entries each (N/2 by default,
so 10,000 retained log files in all) plus Hadoop's `.N.crc` sidecars, a per-source log, one
stateful operator with 200 partitions and its schema file (copied from a real Spark 4.3.0
checkpoint). Prints the median wall time of the command over fresh processes (target: under
0.5 s) next to a bare `python -c pass`, and fails if fsspec or pyspark was imported.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REAL = HERE.parent / "tests" / "fixtures" / "checkpoints" / "spark-4.3.0" / "agg_rocksdb"
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
TARGET_SECONDS = 0.5


def build(root: Path, batches: int, partitions: int = 200) -> None:
    real = REAL / "checkpoint"
    conf = json.loads((real / "offsets" / "2").read_text().split("\n")[1])["conf"]
    conf["spark.sql.shuffle.partitions"] = str(partitions)
    shutil.copy(real / "metadata", root / "metadata")
    for name in ("offsets", "commits", "sources/0"):
        (root / name).mkdir(parents=True)
    crc = b"crc\x00\x00\x00\x02\x00" + b"\x00" * 4
    for batch in range(batches):
        offsets = {"events": {str(p): 1000 * batch + p for p in range(12)}}
        meta = {"batchWatermarkMs": 0, "batchTimestampMs": 1_700_000_000_000 + batch,
                "conf": conf}
        (root / "offsets" / str(batch)).write_text(
            f"v1\n{json.dumps(meta, separators=(',', ':'))}\n{json.dumps(offsets)}")
        (root / "commits" / str(batch)).write_text('v1\n{"nextBatchWatermarkMs":0}')
        (root / "offsets" / f".{batch}.crc").write_bytes(crc)
        (root / "commits" / f".{batch}.crc").write_bytes(crc)
    (root / "sources" / "0" / "0").write_bytes(b"\x00v1\n" + json.dumps(
        {"events": {str(p): 0 for p in range(12)}}).encode())
    state = root / "state" / "0"
    shutil.copytree(real / "state" / "0" / "_metadata", state / "_metadata")
    for part in range(partitions):
        (state / str(part)).mkdir(parents=True, exist_ok=True)
        for version in range(max(1, batches - 10), batches + 1):
            (state / str(part) / f"{version}.changelog").write_bytes(b"")
    shutil.copytree(real / "state" / "0" / "0" / "_metadata", state / "0" / "_metadata")


def median_seconds(command: list[str], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        result = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                check=False, env=ENV)
        times.append(time.perf_counter() - start)
        if result.returncode != 0:
            raise SystemExit(f"{command}: exit {result.returncode}: {result.stderr.decode()}")
    return statistics.median(times)


def heavy_imports(command: list[str]) -> list[str]:
    result = subprocess.run([sys.executable, "-X", "importtime", *command], capture_output=True,
                            text=True, check=False, env=ENV)
    names = [line.rsplit("|", 1)[-1].strip() for line in result.stderr.splitlines()
             if line.startswith("import time:")]
    return sorted({n.split(".")[0] for n in names if n.split(".")[0] in ("fsspec", "pyspark")})


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--batches", type=int, default=5_000,
                        help="entries in offsets/ and in commits/ (default: 10,000 files)")
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--keep", default=None, help="build the checkpoint here and keep it")
    args = parser.parse_args()
    root = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="bench-ckpt-"))
    try:
        if not (root / "metadata").exists():
            root.mkdir(parents=True, exist_ok=True)
            build(root, args.batches)
        files = sum(len(os.listdir(root / d)) for d in ("offsets", "commits"))
        script = Path(sys.executable).with_name("streamlint")
        entry = [str(script)] if script.exists() else [sys.executable, "-m", "streamlint"]
        command = [*entry, "checkpoint", "show", str(root)]
        median_seconds(command, 2)  # warm the page cache and bytecode
        python = median_seconds([sys.executable, "-c", "pass"], args.runs)
        show = median_seconds(command, args.runs)
        json_show = median_seconds([*command, "--format", "json"], args.runs)
        offsets = median_seconds([*entry, "checkpoint", "offsets", str(root)], args.runs)
        heavy = heavy_imports(["-m", "streamlint", "checkpoint", "show", str(root)])
        log_files = args.batches * 2
        print(f"checkpoint: {log_files} retained log files ({files} entries with .crc "
              f"sidecars) in offsets/ and commits/, 200 state partitions")
        print(f"python -c pass                 {python:.3f} s")
        print(f"streamlint checkpoint show     {show:.3f} s (target < {TARGET_SECONDS} s)")
        print(f"  ... --format json            {json_show:.3f} s")
        print(f"streamlint checkpoint offsets  {offsets:.3f} s")
        print(f"fsspec/pyspark imported: {', '.join(heavy) or 'neither'}")
        return 0 if show < TARGET_SECONDS and not heavy else 1
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
