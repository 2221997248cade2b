"""The codes streamlint raises outside `rules/*.toml`, described as rules are.

The matrix judges changes between two versions of a job; these codes come from elsewhere:
an unclassified change, the suppression comments and the acceptance file, and the comparison
with a real checkpoint (`diff --checkpoint`, `--confirm`). They have no change kind and no
runnable examples, but `streamlint explain` and the docs pages treat them like any rule.
"""

from __future__ import annotations

from streamlint.rules import Example, Rule

SUPPRESSION_OLD = '''\
counts = events.groupBy("user").agg(F.count("*").alias("n"))
'''
SUPPRESSION_NEW = '''\
counts = events.groupBy("user").agg(  # streamlint: ignore[AG02] new checkpoint in OPS-12
    F.count("*").alias("n"), F.max("amount").alias("top"))
'''


def _own(code: str, name: str, verdict: str, message: str, why: str, fix: str,
         example: tuple[str, str, str] | None = None, family: str = "streamlint") -> Rule:
    examples = ()
    if example is not None:
        examples = (Example(example[0], verdict, example[1], example[2]),)
    return Rule(code=code, name=name, change=(), verdict=verdict, message=message,
                why=" ".join(why.split()), fix=" ".join(fix.split()), docs="", spark="",
                when=(), examples=examples, family=family)


OWN_RULES: tuple[Rule, ...] = (
    _own("SL000", "unclassified-change", "review",
         "{subject} changed from {old} to {new}",
         """A change streamlint found but no rule of the matrix judges. It is never dropped
         and never guessed: a person decides whether the restart is safe.""",
         """Check the change by hand, and report it so that a rule can judge it next time."""),
    _own("SL01", "unused-suppression", "review",
         "`ignore[CODE]` accepts nothing on this statement",
         """A `# streamlint: ignore[CODE] reason` comment that this change adds, but that
         accepts no finding of that code on its statement: the finding points elsewhere, has
         another code, or the change it was written for is gone. A comment the base version
         already had is never reported: it accepted an earlier change.""",
         """Remove the comment, or put it on the statement of the finding it accepts
         (any line of that statement).""",
         ("comment-on-an-unchanged-statement", "x = 1\n",
          "x = 1  # streamlint: ignore[AG02] nothing here changes\n")),
    _own("SL02", "malformed-suppression", "review",
         "this suppression accepts nothing: it needs a rule code and a reason",
         """A suppression must name the codes it accepts and say why, as in
         `# streamlint: ignore[QY01] moving to the v2 checkpoint on purpose`. A comment
         without a code, without a reason, or with a code no rule has accepts nothing, and
         would otherwise read as if it did.""",
         """Name the codes the change raises (the report prints them) and give the reason.""",
         ("code-missing", SUPPRESSION_OLD,
          SUPPRESSION_NEW.replace("ignore[AG02] new", "ignore new"))),
    _own("SL03", "unused-acceptance", "review",
         "the acceptance of CODE for QUERY accepts nothing in this change",
         """An entry of `.streamlint-accept.toml` that this pull request adds but that
         matches no finding of the change: a misspelt query or checkpoint, or a code the
         change does not raise. Entries already in the base are never reported: they
         accepted earlier changes, and they accept nothing new.""",
         """Correct the entry's code, query or checkpoint to the finding's, or remove it."""),
    _own("SL04", "expired-acceptance", "review",
         "the acceptance of CODE for QUERY expired on DATE",
         """An entry of `.streamlint-accept.toml` whose `expires` date has passed. It no
         longer accepts anything, so the finding it accepted is reported again.""",
         """Remove the entry, or give it a later `expires` date if the change is still
         deliberate and still pending."""),
    _own("CK01", "pinned-setting-ignored", "review",
         "`KEY` is set to NEW, but the checkpoint pinned OLD: Spark silently keeps OLD",
         """`diff --checkpoint`: the job sets a session setting that the checkpoint's offset
         log pinned to another value. Spark restores the pinned value on restart, so the
         new one has no effect on this checkpoint.""",
         """Drop the change, or start a new checkpoint if the new value matters.""",
         family="checkpoint"),
    _own("CK02", "state-schema-incompatible", "incompatible",
         "the key or value schema of a state store does not fit the checkpoint",
         """`diff --checkpoint --confirm`: the state schema Spark derives from the new code
         cannot read the state the checkpoint holds (a field added, removed or retyped).
         Spark refuses the restart (STATE_STORE_KEY_SCHEMA_NOT_COMPATIBLE or
         STATE_STORE_VALUE_SCHEMA_NOT_COMPATIBLE), or on older versions reads garbage.""",
         """Keep the state's schema, or start a new checkpoint with startingOffsets from the
         old one (`streamlint checkpoint offsets PATH` prints them).""",
         family="checkpoint"),
    _own("CK03", "stateful-operators-differ", "incompatible",
         "Spark's run of the new code has other stateful operators than the checkpoint",
         """`diff --checkpoint --confirm`: the new code's stateful operators (their count,
         kinds or order) differ from those whose state the checkpoint holds. State is found
         by operator position, so the restart fails or reads another operator's state.""",
         """Keep the stateful operators, or start a new checkpoint with startingOffsets from
         the old one (`streamlint checkpoint offsets PATH` prints them).""",
         family="checkpoint"),
    _own("CK04", "not-confirmed", "review",
         "Spark could not confirm the state schemas",
         """`diff --confirm`: running the new code on local Spark did not get as far as
         deriving its state schemas (a missing input, an error in the job, a timeout). The
         static findings stand alone.""",
         """Fix what the message names (a table schema in `[tool.streamlint.tables]`, a
         longer `--confirm-timeout`), or rely on the static findings.""",
         family="checkpoint"),
)


# What the report shows, for the codes whose example is no pair of job versions.
SAMPLES: dict[str, tuple[str, str]] = {
    "SL000": ("text", "jobs/orders.py:12:5: warning[SL000] unclassified-change: the foo "
                      "changed from 'a' to 'b'"),
    "SL03": ("toml", '[[accept]]\ncode = "AG04"\nquery = "revenue_per_custmer"  # misspelt: '
                     'accepts nothing\nreason = "10-minute windows, new checkpoint in OPS-77"'),
    "SL04": ("toml", '[[accept]]\ncode = "QY01"\ncheckpoint = "s3://lake/chk/orders_v2"\n'
                     'reason = "reset planned for the migration"\nexpires = 2026-01-31  '
                     '# after this date the finding is reported again'),
    "CK01": ("text", "streamlint diff --checkpoint s3://lake/chk/orders jobs/orders.py\n"
                     "...: warning[CK01] pinned-setting-ignored: `spark.sql.shuffle.partitions` "
                     "is set to '32', but the checkpoint pinned '200'"),
    "CK02": ("text", "streamlint diff --checkpoint s3://lake/chk/orders jobs/orders.py "
                     "--confirm\n...: error[CK02] state-schema-incompatible: the value schema "
                     "of state/0 store default does not fit the checkpoint: 2 fields stored, "
                     "3 now"),
    "CK03": ("text", "streamlint diff --checkpoint s3://lake/chk/orders jobs/orders.py "
                     "--confirm\n...: error[CK03] stateful-operators-differ: Spark's run of "
                     "the new code has 2 stateful operators; the checkpoint has 1"),
    "CK04": ("text", "streamlint diff --checkpoint s3://lake/chk/orders jobs/orders.py "
                     "--confirm\n...: warning[CK04] not-confirmed: Spark could not confirm "
                     "the state schemas: table 'orders' has no schema in "
                     "[tool.streamlint.tables]"),
}


def all_rules() -> tuple[Rule, ...]:
    """Every code streamlint can emit: the matrix's rules, then its own."""
    from streamlint.rules import load_rules

    return load_rules() + OWN_RULES


def find_rule(code: str) -> Rule | None:
    """A rule by code (any case) or by name."""
    for rule in all_rules():
        if rule.code == code.upper() or rule.name == code:
            return rule
    return None
