"""JSON codec for predicate literals shared by the test process and the oracle driver.

Plain JSON scalars pass through; other Python values travel as one-key tagged objects:
``{"$date": "2024-01-02"}``, ``{"$datetime": "2024-01-02T03:04:05.123456+00:00"}``,
``{"$time": "01:02:03.004"}``, ``{"$decimal": "1.25"}``, ``{"$bytes": "<base64>"}``,
``{"$float": "nan"}``. Standard library only (the driver runs in pypaimon's venv).
"""
import base64
import datetime
import decimal
import math


def encode(value):
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return {"$float": repr(value)} if not math.isfinite(value) else value
    if isinstance(value, decimal.Decimal):
        return {"$decimal": str(value)}
    if isinstance(value, datetime.datetime):
        return {"$datetime": value.isoformat()}
    if isinstance(value, datetime.date):
        return {"$date": value.isoformat()}
    if isinstance(value, datetime.time):
        return {"$time": value.isoformat()}
    if isinstance(value, (bytes, bytearray)):
        return {"$bytes": base64.b64encode(bytes(value)).decode("ascii")}
    if isinstance(value, (list, tuple)):
        return [encode(v) for v in value]
    raise TypeError(f"cannot encode literal {value!r}")


def decode(value):
    if isinstance(value, list):
        return [decode(v) for v in value]
    if not isinstance(value, dict):
        return value
    (tag, text), = value.items()
    if tag == "$float":
        return float(text)
    if tag == "$decimal":
        return decimal.Decimal(text)
    if tag == "$datetime":
        return datetime.datetime.fromisoformat(text)
    if tag == "$date":
        return datetime.date.fromisoformat(text)
    if tag == "$time":
        return datetime.time.fromisoformat(text)
    if tag == "$bytes":
        return base64.b64decode(text)
    raise ValueError(f"unknown literal tag {tag!r}")
