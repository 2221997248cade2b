"""Each fixture's own job (query.py) as a standalone PySpark job file.

query.py holds the function the fixture generator ran (`def q_<name>(spark, ctx): ...
return df.writeStream...`). Here its body becomes a module-level job: `ctx.path("input")`
becomes the absolute input path Spark recorded (query.json `paths.root` + `/input`), and the
returned writer gets the checkpoint location and `.start()`.
"""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path

HEADER = """\
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
"""


def standalone_job(fixture: Path, checkpoint: str | None = None) -> str:
    text = (fixture / "query.py").read_text()
    constants = re.findall(r"^[A-Z_]+ = '[^'\n]*'$", text, flags=re.MULTILINE)
    match = re.search(r"^def q_\w+\(spark, ctx\):\n((?:    .*\n|\n)+)", text, re.MULTILINE)
    assert match, f"{fixture}/query.py: no query function"
    body = textwrap.dedent(match.group(1))
    root = json.loads((fixture / "query.json").read_text())["paths"]["root"]
    body = re.sub(r'ctx\.path\("(\w+)"\)', lambda m: repr(f"{root}/{m.group(1)}"), body)
    location = checkpoint or str(fixture / "checkpoint")
    head, sep, returned = body.rstrip().rpartition("\nreturn ")
    assert sep, f"{fixture}/query.py: the function does not end with a return"
    return (HEADER + "\n".join(constants) + "\n\n" + head + "\n"
            + f"query = ({returned}\n    .option('checkpointLocation', {location!r})"
            + f".queryName({fixture.name!r}).start())\n")


def write_job(tmp_path: Path, fixture: Path, text: str | None = None) -> Path:
    path = tmp_path / f"{fixture.parent.name}-{fixture.name}.py"
    path.write_text(text if text is not None else standalone_job(fixture))
    return path
