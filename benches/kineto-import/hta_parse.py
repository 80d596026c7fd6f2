"""Parses one Kineto trace with Holistic Trace Analysis's trace parser (its
default backend) and prints the rows, the parse time and this process's
peak resident memory, for benches/kineto-import."""

import resource
import sys
import time

from hta.common.trace_parser import parse_trace_dataframe
from hta.configs.parser_config import ParserConfig

start = time.perf_counter()
_meta, df, _symbols = parse_trace_dataframe(sys.argv[1], ParserConfig())
wall = time.perf_counter() - start
peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(f"rows={len(df)} wall_s={wall:.3f} peak_rss_kb={peak_kb}")
