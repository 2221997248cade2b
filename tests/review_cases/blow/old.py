import sys
def a0(df):
    return df.withColumn('a', df.x)
def b0(df):
    return df.withColumn('b', df.x)
h0 = a0 if sys.argv[1] == '0' else b0
def a1(df):
    return h0(h0(df))
def b1(df):
    return h0(df).withColumn('c1', df.x)
h1 = a1 if sys.argv[1] == '1' else b1
def a2(df):
    return h1(h1(df))
def b2(df):
    return h1(df).withColumn('c2', df.x)
h2 = a2 if sys.argv[1] == '2' else b2
def a3(df):
    return h2(h2(df))
def b3(df):
    return h2(df).withColumn('c3', df.x)
h3 = a3 if sys.argv[1] == '3' else b3
def a4(df):
    return h3(h3(df))
def b4(df):
    return h3(df).withColumn('c4', df.x)
h4 = a4 if sys.argv[1] == '4' else b4
def a5(df):
    return h4(h4(df))
def b5(df):
    return h4(df).withColumn('c5', df.x)
h5 = a5 if sys.argv[1] == '5' else b5
def a6(df):
    return h5(h5(df))
def b6(df):
    return h5(df).withColumn('c6', df.x)
h6 = a6 if sys.argv[1] == '6' else b6
def a7(df):
    return h6(h6(df))
def b7(df):
    return h6(df).withColumn('c7', df.x)
h7 = a7 if sys.argv[1] == '7' else b7
def a8(df):
    return h7(h7(df))
def b8(df):
    return h7(df).withColumn('c8', df.x)
h8 = a8 if sys.argv[1] == '8' else b8
def a9(df):
    return h8(h8(df))
def b9(df):
    return h8(df).withColumn('c9', df.x)
h9 = a9 if sys.argv[1] == '9' else b9
def a10(df):
    return h9(h9(df))
def b10(df):
    return h9(df).withColumn('c10', df.x)
h10 = a10 if sys.argv[1] == '10' else b10
src = spark.readStream.format('kafka').option('subscribe', 'a').load()
h10(src).writeStream.format('console').option('checkpointLocation', '/chk/z').start()
