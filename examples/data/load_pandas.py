#!/usr/bin/env python3
"""Load `ioanalyze dump` JSONL into pandas with every column typed exactly.

    ioanalyze dump --schema > schema.json
    ioanalyze dump trace.zst > events.jsonl
    python3 load_pandas.py schema.json events.jsonl

pandas' read_json builds an integer column that holds a null as float64
first, so a dtype given to it comes too late: start_unix_ns loses its last
digits. Here each line is parsed by the json module (exact integers) and
each column built straight as the nullable dtype the schema names (Int64,
Int32, UInt64, string), so nothing passes through a double.
"""
import json
import sys

import pandas as pd


def load(schema_path, jsonl_path):
    """The events of jsonl_path as a DataFrame typed by the schema's "pandas" map."""
    with open(schema_path, encoding="utf-8") as f:
        dtypes = json.load(f)["pandas"]
    columns = {name: [] for name in dtypes}
    with open(jsonl_path, encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            event = json.loads(line)
            for name, values in columns.items():
                values.append(event.get(name))
    return pd.DataFrame({
        name: pd.Series(values, dtype="object") if dtypes[name] == "object"
        else pd.array(values, dtype=dtypes[name])
        for name, values in columns.items()
    })


def main(argv):
    if len(argv) != 3:
        sys.exit("usage: load_pandas.py SCHEMA.json EVENTS.jsonl")
    df = load(argv[1], argv[2])
    calls = df[df["ev"] == "call"]
    print(f"{len(df)} events, {len(calls)} calls")
    print(calls.groupby(["process", "path"])["dur"].sum().nlargest(5).to_string())


if __name__ == "__main__":
    main(sys.argv)
