# The shape of atc-dataplatform's AutoloaderStreamHandle (src/atc/delta/autoloaderstream_handle.py):
# read() hands an Auto Loader stream to callers this file does not show. No query here.
from pyspark.sql import DataFrame, SparkSession


class AutoloaderStreamHandle:
    def __init__(self, *, location: str, checkpoint_path: str, data_format: str):
        self._location = location
        self._data_format = data_format
        self._checkpoint_path = checkpoint_path

    def read(self) -> DataFrame:
        return (
            SparkSession.builder.getOrCreate()
            .readStream.format("cloudFiles")
            .option("cloudFiles.format", self._data_format)
            .option("cloudFiles.schemaLocation", self._checkpoint_path)
            .load(self._location)
        )
