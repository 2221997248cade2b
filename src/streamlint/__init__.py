"""streamlint: can this changed Spark Structured Streaming job restart from its checkpoint?"""

__version__ = "0.1.0"
