"""What PySpark's objects do, for the interpreter: readers, DataFrames, groupings, writers.

Each method a job can call on a symbolic object is translated into the plain records of
`streamlint.model`; anything not listed keeps the DataFrame as it was (a map-like step that
cannot change what a checkpoint holds) or becomes an `Unknown`. Importing this package
registers its handlers in `registry`, by receiver: `session` (SparkSession, its builder and
conf, the functions and types modules, objects from code streamlint cannot see), `reader`,
`dataframe` (and Column), `grouped`, `writer`, `ml` (pyspark.ml stages scoring a
stream) and `glue` (AWS Glue's job arguments and streams).
"""

from __future__ import annotations

from streamlint.extract.pyspark_api.dataframe import dataframe_call
from streamlint.extract.pyspark_api.glue import STREAMING as GLUE_STREAMING
from streamlint.extract.pyspark_api.grouped import grouped_call
from streamlint.extract.pyspark_api.ml import MODULES as ML_MODULES
from streamlint.extract.pyspark_api.reader import FILE_FORMATS, make_source, reader_call
from streamlint.extract.pyspark_api.session import session_method
from streamlint.extract.pyspark_api.settings import record_settings
from streamlint.extract.pyspark_api.writer import foreach_code, start, trigger_of

__all__ = [
    "FILE_FORMATS", "GLUE_STREAMING", "ML_MODULES", "dataframe_call", "foreach_code",
    "grouped_call", "make_source", "reader_call", "record_settings", "session_method", "start",
    "trigger_of",
]
