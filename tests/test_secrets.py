"""Credentials are never printed: not in a message, a value, a source line or a patch, in
any output format; a rotated one is a compatible note (SO17), compared by digest."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from gitrepo import Repo

from streamlint.cli import main
from streamlint.model.secrets import PLACEHOLDER, is_credential, mask_line, masked

FORMATS = ("text", "json", "github", "sarif", "markdown")
OLD_PASSWORD = "Hunter2-old-9f8e7d"
NEW_PASSWORD = "Hunter2-new-1a2b3c"
OLD_KEY = "c2VjcmV0LWtleS1vbGQ0NTY3OA=="
NEW_KEY = "c2VjcmV0LWtleS1uZXcxMjM0NQ=="
SECRETS = (OLD_PASSWORD, NEW_PASSWORD, OLD_KEY, NEW_KEY)


def job(password: str, key: str, topic: str = "orders", hub: str = "payments") -> str:
    """Kafka with SASL (the JAAS line on the source's own line), an Event Hubs source whose
    connection string carries a key, a Kafka sink with its own JAAS and an S3 secret key set
    on the session."""
    jaas = ("org.apache.kafka.common.security.plain.PlainLoginModule required "
            f'username="etl" password="{password}";')
    connection = ("Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=listen;"
                  f"SharedAccessKey={key};EntityPath={hub}")
    # One line each: the text report shows a finding's line, the secret on it masked.
    orders = ('orders = spark.readStream.format("kafka")'
              f'.option("subscribe", "{topic}")'
              f".option(\"kafka.sasl.jaas.config\", '{jaas}').load()")
    payments = ('payments = spark.readStream.format("eventhubs")'
                f'.option("eventhubs.connectionString", "{connection}").load()')
    return f'''\
from pyspark.sql import SparkSession

spark = SparkSession.builder.getOrCreate()
spark.conf.set("spark.hadoop.fs.s3a.secret.key", "{key}")
{orders}
{payments}
(orders.union(payments.selectExpr("body AS value", "offset AS key"))
    .writeStream.format("kafka")
    .option("topic", "out")
    .option("kafka.sasl.jaas.config", '{jaas}')
    .option("checkpointLocation", "/chk/orders")
    .start())
'''


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out + err


@pytest.fixture
def pair(tmp_path: Path):  # type: ignore[no-untyped-def]
    def make(old: str, new: str) -> list[str]:
        (tmp_path / "old.py").write_text(old)
        (tmp_path / "new.py").write_text(new)
        return [str(tmp_path / "old.py"), str(tmp_path / "new.py")]

    return make


def assert_hidden(out: str) -> None:
    for secret in SECRETS:
        assert secret not in out
        assert secret[:12] not in out


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_rotated_credential_is_a_note_that_shows_neither_value(pair, capsys, fmt) -> None:
    files = pair(job(OLD_PASSWORD, OLD_KEY), job(NEW_PASSWORD, NEW_KEY))
    code, out = run(["diff", *files, "--format", fmt], capsys)
    assert_hidden(out)
    assert "SO17" in out
    assert code == 0  # compatible (the session setting is a review at most)


@pytest.mark.parametrize("fmt", FORMATS)
def test_secrets_stay_hidden_beside_an_incompatible_change(pair, capsys, fmt) -> None:
    """With a topic renamed too: the report prints source lines and the `next:` patch."""
    files = pair(job(OLD_PASSWORD, OLD_KEY), job(NEW_PASSWORD, NEW_KEY, topic="orders_v2"))
    code, out = run(["diff", *files, "--format", fmt], capsys)
    assert_hidden(out)
    assert code == 1 and "SO04" in out


def test_the_text_report_masks_the_source_line_it_shows(pair, capsys) -> None:
    files = pair(job(OLD_PASSWORD, OLD_KEY), job(NEW_PASSWORD, NEW_KEY, topic="orders_v2"))
    _, out = run(["diff", *files], capsys)
    assert '.option("kafka.sasl.jaas.config", \'***\')' in out  # the line, its secret masked
    assert "next: streamlint checkpoint offsets /chk/orders" in out


def test_json_values_are_placeholders(pair, capsys) -> None:
    files = pair(job(OLD_PASSWORD, OLD_KEY), job(NEW_PASSWORD, NEW_KEY))
    _, out = run(["diff", *files, "--format", "json"], capsys)
    findings = json.loads(out)["findings"]
    credentials = [f for f in findings if f["code"] == "SO17"]
    assert {f["message"].split("`")[1] for f in credentials} >= {
        "kafka.sasl.jaas.config", "eventhubs.connectionString"}
    assert all(f["old_value"] == PLACEHOLDER == f["new_value"] for f in credentials)
    sink = [f for f in findings if f["kind"] == "sink.option"]
    setting = [f for f in findings if f["kind"] == "config.changed"]
    assert sink and setting
    assert all(PLACEHOLDER in f["message"] for f in sink + setting)


def test_the_same_credential_is_no_change(pair, capsys) -> None:
    files = pair(job(OLD_PASSWORD, OLD_KEY), job(OLD_PASSWORD, OLD_KEY))
    _, out = run(["diff", *files, "--format", "json"], capsys)
    assert json.loads(out)["findings"] == []


def test_another_event_hub_is_what_is_read_and_its_key_stays_hidden(pair, capsys) -> None:
    files = pair(job(OLD_PASSWORD, OLD_KEY), job(OLD_PASSWORD, OLD_KEY, hub="refunds"))
    code, out = run(["diff", *files, "--format", "json"], capsys)
    assert_hidden(out)
    [finding] = json.loads(out)["findings"]
    assert finding["code"] == "SO04" and "EntityPath=refunds" in finding["new_value"]
    assert code == 1


def test_an_event_hubs_connection_known_only_at_run_time(pair, capsys) -> None:
    """`EventHubsUtils.encrypt(...)`: the hub it names is not known, so another expression is
    a review (UN02), its literal key masked in the code shown."""
    old = ('df = spark.readStream.format("eventhubs").option("eventhubs.connectionString", '
           'sc._jvm.org.apache.spark.eventhubs.EventHubsUtils.encrypt('
           f'"Endpoint=sb://n/;SharedAccessKey={OLD_KEY};EntityPath=a")).load()\n'
           'df.writeStream.format("delta").option("checkpointLocation", "/chk/o").start("/t/o")\n')
    for new, verdict in ((old.replace(OLD_KEY, NEW_KEY), "compatible"),
                         (old.replace("EntityPath=a", "EntityPath=b"), "review")):
        for fmt in FORMATS:
            code, out = run(["diff", *pair(old, new), "--format", fmt], capsys)
            assert_hidden(out)
        _, out = run(["diff", *pair(old, new), "--format", "json"], capsys)
        assert json.loads(out)["verdict"] == verdict


@pytest.mark.parametrize("fmt", ("text", "json", "sarif"))
def test_check_hides_them_too(tmp_path: Path, monkeypatch, capsys, fmt) -> None:
    repo = Repo(tmp_path)
    repo.put("jobs/orders.py", job(OLD_PASSWORD, OLD_KEY))
    repo.commit("as it runs")
    repo.put("jobs/orders.py", job(NEW_PASSWORD, NEW_KEY, topic="orders_v2"))
    monkeypatch.chdir(tmp_path)
    code, out = run(["check", "--base", "HEAD", "--format", fmt], capsys)
    assert_hidden(out)
    assert code == 1


@pytest.mark.parametrize("key", [
    "kafka.sasl.jaas.config", "kafka.ssl.keystore.password", "kafka.ssl.key.password",
    "eventhubs.connectionString", "fs.azure.account.key.acct.dfs.core.windows.net",
    "spark.hadoop.fs.s3a.secret.key", "fs.azure.sas.container.acct.blob.core.windows.net",
    "cloudFiles.clientSecret", "awsSecretKey", "apiKey", "auth_token", "privateKey",
])
def test_credential_keys(key: str) -> None:
    assert is_credential(key)
    assert masked(key, "x") != "x"


@pytest.mark.parametrize("key", [
    "kafka.sasl.mechanism", "kafka.security.protocol", "subscribe", "checkpointLocation",
    "kafka.ssl.truststore.location", "cloudFiles.schemaLocation", "maxOffsetsPerTrigger",
])
def test_not_credential_keys(key: str) -> None:
    assert not is_credential(key)
    assert masked(key, "x") == "x"


def test_mask_line() -> None:
    line = ('.option("kafka.sasl.jaas.config", \'PlainLoginModule required username="u" '
            'password="p4ss";\').option("subscribe", "t")')
    assert "p4ss" not in mask_line(line)
    assert mask_line('jaas = \'x password="p4ss";\'') == 'jaas = \'x password="***";\''
    assert "k3y" not in mask_line('"Endpoint=sb://n/;SharedAccessKey=k3y=;EntityPath=h"')
    assert mask_line('.option("subscribe", "orders")') == '.option("subscribe", "orders")'


@pytest.mark.parametrize("fmt", FORMATS)
def test_code_shown_as_written_is_masked(pair, capsys, fmt) -> None:
    """A call streamlint cannot follow is named by its code (UN01): a password passed to it
    as a literal is masked there too."""
    old = ('from company.streams import read_kafka\n'
           f'df = read_kafka(spark, "orders", password="{OLD_PASSWORD}")\n'
           'df.writeStream.format("delta").option("checkpointLocation", "/chk/e").start("/t/e")\n')
    _, out = run(["diff", *pair(old, old.replace(OLD_PASSWORD, NEW_PASSWORD)), "--format", fmt],
                 capsys)
    assert_hidden(out)
    assert "UN01" in out
