"""Counters and a latency histogram, rendered in the Prometheus text format."""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Callable

# Upper bounds in seconds of the move latency buckets.
BUCKETS = (0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0)


class Metrics:
    """What ``GET /metrics`` reports. ``gauges`` are read when the page is rendered."""

    def __init__(self, gauges: Callable[[], dict[str, float]], node: str = "") -> None:
        self.gauges = gauges
        self.node = node
        # What happened on this node; summed over the nodes, how often it happened.
        self.countdowns = 0
        self.races_started = 0
        self.races_finished = 0  # finishes this node stored
        self.deadlines = 0  # of those, by the race's deadline
        # What crossed nodes.
        self.events_published = 0  # events sent to other nodes
        self.events_received = 0  # events received from other nodes
        self.moves_crossed = 0  # moves stored here whose event went to another node
        self.leases_taken = 0  # races whose lease this node took over from another node
        self.leases_released = 0  # races handed over on a clean stop
        self.moves = 0
        self.connections_total = 0
        self.replays_built = 0  # replays built from a race (then kept), not read back
        self.races_expired = 0
        self.invitations = 0  # invitations sent to bots (renewals too)
        self.connections_refused = 0  # websocket upgrades answered 503: max_connections were open
        self.errors: Counter[str] = Counter()
        self._bucket_counts = [0] * (len(BUCKETS) + 1)
        self._latency_sum = 0.0

    def observe_move(self, seconds: float) -> None:
        self.moves += 1
        self._bucket_counts[bisect.bisect_left(BUCKETS, seconds)] += 1
        self._latency_sum += seconds

    def render(self) -> str:
        lines = ["# TYPE parlour_node_info gauge", f'parlour_node_info{{node="{self.node}"}} 1']
        for name, value in sorted(self.gauges().items()):
            lines += [f"# TYPE parlour_{name} gauge", f"parlour_{name} {value}"]
        lines += ["# TYPE parlour_connections_total counter", f"parlour_connections_total {self.connections_total}"]
        lines += ["# TYPE parlour_moves_total counter", f"parlour_moves_total {self.moves}"]
        lines += ["# TYPE parlour_replays_built_total counter", f"parlour_replays_built_total {self.replays_built}"]
        lines += ["# TYPE parlour_races_expired_total counter", f"parlour_races_expired_total {self.races_expired}"]
        for name in (
            "countdowns",
            "races_started",
            "races_finished",
            "deadlines",
            "events_published",
            "events_received",
            "moves_crossed",
            "leases_taken",
            "leases_released",
            "invitations",
            "connections_refused",
        ):
            lines += [f"# TYPE parlour_{name}_total counter", f"parlour_{name}_total {getattr(self, name)}"]
        lines.append("# TYPE parlour_errors_total counter")
        lines += [f'parlour_errors_total{{code="{code}"}} {n}' for code, n in sorted(self.errors.items())]
        lines.append("# TYPE parlour_move_latency_seconds histogram")
        running = 0
        for bound, count in zip(BUCKETS, self._bucket_counts, strict=False):
            running += count
            lines.append(f'parlour_move_latency_seconds_bucket{{le="{bound}"}} {running}')
        lines.append(f'parlour_move_latency_seconds_bucket{{le="+Inf"}} {self.moves}')
        lines.append(f"parlour_move_latency_seconds_sum {self._latency_sum:.6f}")
        lines.append(f"parlour_move_latency_seconds_count {self.moves}")
        return "\n".join(lines) + "\n"
