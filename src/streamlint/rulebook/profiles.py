"""The runtime profiles streamlint judges for (`rules/runtimes.toml`): the Spark versions it
knows, the Databricks runtimes that run them, and how a version someone wrote is read."""

from __future__ import annotations

import re
from functools import cache

from streamlint.model.errors import UsageError
from streamlint.model.records import record
from streamlint.rulebook.book import known_runtime, rule_data, runtime_releases
from streamlint.rulebook.rule import Rule, Runtime, parse_version, version_in


@record
class Profile:
    """A Spark version the rules judge for (`spark`, "4.3"), and the Databricks runtime that
    runs it when one was named ("17.3", "18")."""

    spark: str
    databricks: str = ""

    def describe(self) -> str:
        """`Spark 4.3`, or `Databricks Runtime 17.3 (Spark 4.0)`."""
        return shown_profile(self.spark, self.databricks)

    @property
    def runtime(self) -> Runtime:
        """What the rules are matched against (`Rule.holds_for`)."""
        return runtime_of(self.spark, self.databricks)


def shown_profile(spark: str, databricks: str = "") -> str:
    """`Spark 4.3`, or `Databricks Runtime 17.3 (Spark 4.0)`: how every report names what it
    judged for."""
    return f"Databricks Runtime {databricks} (Spark {spark})" if databricks else f"Spark {spark}"


def runtime_of(spark: str, databricks: str = "") -> Runtime:
    """The runtime of a profile: a Databricks runtime named by its major alone ("18") is its
    last feature release (`release` in rules/runtimes.toml, "18.3")."""
    if not databricks:
        return Runtime(parse_version(spark))
    release = parse_version(databricks)
    if len(release) == 1:
        release = _releases().get(release[0], release)
    return Runtime(parse_version(spark), release)


@cache
def _releases() -> dict[int, tuple[int, ...]]:
    return runtime_releases(rule_data("runtimes"))


def all_runtimes() -> tuple[Runtime, ...]:
    """Every runtime the rules tell apart: each Spark profile, and each feature release of
    each Databricks runtime."""
    spark = databricks_runtimes()
    return (*(Runtime(parse_version(v)) for v in known()),
            *(Runtime(parse_version(spark[str(major)]), (major, minor))
              for major, last in _releases().items() for minor in range(last[1] + 1)))


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
# `dbr-17.3`, `DBR 17`, `databricks-17.3`; a cluster spec's `17.3.x-scala2.13`, or
# `18.x-scala2.13` for a runtime without feature releases.
_DBR = re.compile(r"(?:dbr|databricks)[-_ ]?(\d+)(?:\.(\d+|x))?", re.IGNORECASE)
_CLUSTER = re.compile(r"(\d+)\.(?:(\d+|x)\.)?x-")


def known_text() -> str:
    runtimes = ", ".join(f"{major}.0-{major}.{last[1]}" if last[1] else str(major)
                         for major, last in _releases().items())
    return (f"streamlint knows Spark {', '.join(known())} (and the Databricks runtimes "
            f"{runtimes} that run them)")


def spark_minor(text: str) -> str | None:
    """`4.3` of `4.3`, `4.3.0`, `4.3.0.dev1`; None when it is not such a version."""
    match = _SPARK.fullmatch(text.strip().split("-")[0].split("+")[0].rstrip(".*"))
    return f"{int(match[1])}.{int(match[2])}" if match else None


def databricks_profile(major: str, minor: str | None) -> Profile | None:
    """The profile of Databricks Runtime `major`[.`minor`], None for a runtime without one
    (an unknown major, or a minor past its last feature release: `dbr-17.5`)."""
    spark = databricks_runtimes().get(str(int(major)))
    shown = f"{int(major)}.{int(minor)}" if minor and minor != "x" else str(int(major))
    if spark is None or not known_runtime(parse_version(shown), _releases()):
        return None
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
            named = dbr[1] + (f".{dbr[2]}" if dbr[2] and dbr[2] != "x" else "")
            raise UsageError(f"{where}: Databricks Runtime {named} has no profile; "
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


def shown_holds(rule: Rule) -> str:
    """Where a rule holds, in words: `Spark 3.5-4.3; Databricks Runtime 14-19`, or, for a rule
    bound to Databricks runtimes, `Databricks Runtime 18.3+` (never on Apache Spark)."""
    if not rule.databricks:
        return holds_for(rule.spark)
    return f"Databricks Runtime {_shown_runtime_range(rule)}"


def spark_column(rule: Rule) -> str:
    """A rule table's Spark column: the versions it holds for; `-` for a rule bound to
    Databricks runtimes, which holds on no Apache Spark."""
    return "-" if rule.databricks else shown_range(rule.spark)


def runtime_column(rule: Rule) -> str:
    """A rule table's Databricks Runtime column: the runtimes it is bound to, or those that run
    the Spark versions it holds for."""
    return _shown_runtime_range(rule) if rule.databricks else shown_runtimes(rule.spark)


def _shown_runtime_range(rule: Rule) -> str:
    runtimes = ", ".join(_shown_clause(c.strip()) for c in rule.databricks.split(","))
    return runtimes + (f" on Spark {shown_range(rule.spark)}" if rule.spark else "")


def _shown_clause(clause: str) -> str:
    version = clause.lstrip("<>=")
    return {">=": f"{version}+", ">": f"after {version}", "<": f"before {version}",
            "<=": f"up to {version}"}.get(clause[: len(clause) - len(version)], version)
