#!/usr/bin/env python3
"""An external Weft strategy in plain Python (standard library only): level round-robin, the same
schedule as the built-in `level-rr`.

Weft runs it as `weft schedule MODEL --external python3 examples/strategies/level_rr.py` and writes
the strategy input (docs/strategy-protocol.md) to its standard input; it prints a schedule JSON on
its standard output. Events are left out: Weft computes the minimal ones and validates the result.

The method: nodes by ASAP level (ties in topological order); the i-th node of a level goes to stream
i mod max_streams; a node predicted shorter than the granularity whose stream holds none of its
producers moves to the stream of its latest-finishing producer; streams are numbered by first use.
"""
import json
import sys


def main():
    inp = json.load(sys.stdin)
    nodes, order = inp["nodes"], inp["topo_order"]
    max_streams = inp["options"]["max_streams"]
    granularity = inp["options"]["granularity_us"]
    n = len(nodes)
    preds = [[] for _ in range(n)]
    for u, v in inp["edges"]:
        preds[v].append(u)
    for p in preds:
        p.sort()
    time = [node["time_us"] for node in nodes]

    level = [0] * n
    for v in order:
        for u in preds[v]:
            level[v] = max(level[v], level[u] + 1)
    rank = {v: i for i, v in enumerate(order)}
    by_level = sorted(order, key=lambda v: (level[v], rank[v]))

    stream = [0] * n
    next_in_level = {}
    for v in by_level:
        i = next_in_level.get(level[v], 0)
        stream[v] = i % max_streams
        next_in_level[level[v]] = i + 1

    if granularity > 0:
        start = [0.0] * n
        for v in order:
            for u in preds[v]:
                start[v] = max(start[v], start[u] + time[u])
        for v in order:
            if not preds[v] or time[v] >= granularity:
                continue
            latest, on_producer_stream = None, False
            for u in preds[v]:
                if stream[u] == stream[v]:
                    on_producer_stream = True
                if latest is None or start[u] + time[u] > start[latest] + time[latest]:
                    latest = u
            if not on_producer_stream:
                stream[v] = stream[latest]

    renumber, streams = {}, []
    for v in by_level:
        s = renumber.setdefault(stream[v], len(streams))
        if s == len(streams):
            streams.append([])
        streams[s].append(nodes[v]["key"])

    json.dump({"format": "weft-schedule", "version": 1, "strategy": "level-rr.py", "streams": streams}, sys.stdout)


if __name__ == "__main__":
    main()
