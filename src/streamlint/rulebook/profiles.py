"""The runtime profiles streamlint judges for (`rules/runtimes.toml`): the Spark versions it
knows, the Databricks runtimes that run them, and how a version someone wrote is read."""

from __future__ import annotations

import re
from functools import cache

from streamlint.model.errors import UsageError
from streamlint.model.records import record
from streamlint.rulebook.book import parse_version, rule_data, version_in


@record
class Profile:
    """A Spark version the rules judge for (`spark`, "4.3"), and the Databricks runtime that
    runs it when one was named ("17.3")."""

    spark: str
    databricks: str = ""

    def describe(self) -> str:
        """`Spark 4.3`, or `Spark 4.0 (Databricks Runtime 17.3)`."""
        runtime = f" (Databricks Runtime {self.databricks})" if self.databricks else ""
        return f"Spark {self.spark}{runtime}"


@cache
def known() -> tuple[str, ...]:
    """The Spark versions with a profile, oldest first."""
    return tuple(str(entry["version"]) for entry in rule_data("runtimes").get("spark", []))


@cache
def latest() -> str:
    return str(rule_data("runtimes")["latest"])


@cache
def databricks_runtimes() -> dict[str, str]:
    """Databricks runtime major version -> the Spark version it runs."""
    return {str(e["runtime"]): str(e["spark"]) for e in rule_data("runtimes").get("databricks", [])}


_SPARK = re.compile(r"(\d+)\.(\d+)(?:\.\d+)*")
# `dbr-17.3`, `DBR 17`, `databricks-17.3`; a cluster spec's `17.3.x-scala2.13`.
_DBR = re.compile(r"(?:dbr|databricks)[-_ ]?(\d+)(?:\.(\d+|x))?", re.IGNORECASE)
_CLUSTER = re.compile(r"(\d+)\.(\d+|x)\.x-")


def known_text() -> str:
    return (f"streamlint knows Spark {', '.join(known())} (and the Databricks runtimes "
            f"{', '.join(databricks_runtimes())} that run them)")


def spark_minor(text: str) -> str | None:
    """`4.3` of `4.3`, `4.3.0`, `4.3.0.dev1`; None when it is not such a version."""
    match = _SPARK.fullmatch(text.strip().split("-")[0].split("+")[0].rstrip(".*"))
    return f"{int(match[1])}.{int(match[2])}" if match else None


def databricks_profile(major: str, minor: str | None) -> Profile | None:
    """The profile of Databricks Runtime `major`[.`minor`], None for a runtime without one."""
    spark = databricks_runtimes().get(str(int(major)))
    if spark is None:
        return None
    shown = f"{int(major)}.{minor}" if minor and minor != "x" else str(int(major))
    return Profile(spark, shown)


def parse_profile(text: str, where: str = "--spark-version") -> Profile:
    """The profile a version given on the command line or in configuration names: a Spark
    version ("4.3", "4.2.1") or a Databricks runtime ("dbr-17.3"). Anything else, or a
    version without a profile, is refused with the list of known ones."""
    value = text.strip()
    dbr = _DBR.fullmatch(value) or _CLUSTER.match(value)
    if dbr:
        profile = databricks_profile(dbr[1], dbr[2])
        if profile is None:
            raise UsageError(f"{where}: Databricks Runtime {dbr[1]} has no profile; "
                             f"{known_text()}")
        return profile
    minor = spark_minor(value)
    if minor is None:
        raise UsageError(f"{where}: not a Spark version: {text!r} (expected e.g. 4.3, 3.5.1 "
                         f"or dbr-17.3); {known_text()}")
    if minor not in known():
        raise UsageError(f"{where}: Spark {value} has no profile; {known_text()}"
                         + (f" (for an older Spark, {known()[0]} is the nearest)"
                            if _older(minor) else ""))
    return Profile(minor)


def _older(minor: str) -> bool:
    return tuple(map(int, minor.split("."))) < tuple(map(int, known()[0].split(".")))


def declared_profile(version: str) -> tuple[Profile, str] | None:
    """The profile of a Spark version a project declares (a pyspark pin), with what to add to
    its source: a Spark older than every profile is judged as the oldest, and says so (a
    project on pyspark 3.3 is better judged by 3.5's rules than refused). A version newer
    than every profile is no profile: None."""
    minor = spark_minor(version)
    if minor is None:
        return None
    if minor in known():
        return Profile(minor), ""
    if _older(minor):
        return Profile(known()[0]), (f"; Spark {minor} is older than every profile, judged "
                                     f"as {known()[0]}")
    return None


def profiles_for(spec: str) -> tuple[str, ...]:
    """The Spark versions with a profile a rule's range (`>=4.1`, `<4.1`, "") holds for."""
    return tuple(v for v in known() if version_in(parse_version(v), spec))


def runtimes_for(spec: str) -> tuple[str, ...]:
    """The Databricks runtimes (major versions) that run a Spark version a rule's range holds
    for, by rules/runtimes.toml's mapping."""
    held = set(profiles_for(spec))
    return tuple(runtime for runtime, spark in databricks_runtimes().items() if spark in held)


def _span(held: tuple[str, ...], every: tuple[str, ...]) -> str:
    """`4.1-4.3` for a run of consecutive entries of `every`, else `3.5, 4.3`."""
    if not held:
        return "none"
    start = every.index(held[0])
    if len(held) > 1 and held == every[start:start + len(held)]:
        return f"{held[0]}-{held[-1]}"
    return ", ".join(held)


def shown_range(spec: str) -> str:
    """A rule's range as the Spark versions with a profile it holds for: `3.5-4.3`, `4.1-4.3`,
    `3.5, 4.3`; `none` where no profile is in it."""
    return _span(profiles_for(spec), known())


def shown_runtimes(spec: str) -> str:
    """The Databricks runtimes a rule's range holds for: `14-19`, `18-19`; `none yet` where
    no runtime streamlint knows runs a Spark version of the range."""
    held = runtimes_for(spec)
    return _span(held, tuple(databricks_runtimes())) if held else "none yet"


def holds_for(spec: str) -> str:
    """Where a rule holds, in words: `Spark 3.5-4.3; Databricks Runtime 14-19`."""
    return f"Spark {shown_range(spec)}; Databricks Runtime {shown_runtimes(spec)}"
