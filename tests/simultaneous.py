"""Requests made at the same moment, each on its own database connection (tests of races)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from django.db import connection


def at_once(requests: list[Callable[[], Any]]) -> list[Any]:
    """Run every request in its own thread (its own database connection), released together;
    their answers, in the order they came."""
    start = threading.Barrier(len(requests))
    answers: list[Any] = []

    def run(request: Callable[[], Any]) -> None:
        try:
            start.wait()
            answers.append(request())
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(request,)) for request in requests]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return answers
