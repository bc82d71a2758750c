"""A real two-node Ray cluster on this machine (a head and a second node, one CPU each, through
`ray.cluster_utils.Cluster`: it stops only its own processes, unlike `ray stop`), and a real Chroma server
(`chroma run`), both on 127.0.0.1 and both stopped at the end of the module.

Ray is an optional extra (`ragtest[distributed]`): without it these tests skip, unless RAGTEST_REQUIRE_RAY=1
(CI sets it), where they fail.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")


def require_ray() -> Any:
    if os.environ.get("RAGTEST_REQUIRE_RAY", "") not in ("", "0"):
        import ray

        return ray
    return pytest.importorskip("ray")


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[str]:
    """The address of a head plus a second node (one CPU each); ragtest joins it through `--ray ADDRESS`."""
    require_ray()
    import ray
    from ray.cluster_utils import Cluster

    from ragtest.distributed import shutdown

    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    try:
        cluster.add_node(num_cpus=1)
        cluster.wait_for_nodes()
        yield str(cluster.address)
    finally:
        shutdown()
        ray.shutdown()
        cluster.shutdown()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def chroma_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A Chroma server on 127.0.0.1 (its data in a temporary folder); its URL."""
    port = free_port()
    folder = tmp_path_factory.mktemp("chroma-server")
    chroma = Path(sys.executable).parent / "chroma"
    command = [str(chroma), "run", "--path", str(folder), "--host", "127.0.0.1", "--port", str(port)]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    break
            except OSError:
                assert process.poll() is None, "chroma run exited"
                time.sleep(0.2)
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(timeout=30)
