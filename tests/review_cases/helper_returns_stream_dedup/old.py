# The shape of atc-dataplatform's StreamExtractor (src/atc/etl/extractors/stream_extractor.py):
# a library class that returns a stream its callers build their queries on. No query here.
from pyspark.sql import DataFrame


class StreamExtractor:
    def __init__(self, handle, dataset_key: str):
        self.dataset_key = dataset_key
        self.handle = handle

    def read(self) -> DataFrame:
        return self.handle.read_stream()
