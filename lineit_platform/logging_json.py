"""``LOG_FORMAT=json``: each log record as one JSON object on one line, for a log shipper (Loki,
Elasticsearch, CloudWatch...). python-json-logger's formatter, with the fields named as such
shippers expect: ``time`` (ISO 8601, UTC), ``level``, ``logger``, ``message``, and ``exc_info``
(the traceback, in the JSON string) when there is one; the process id, and Celery's task name and
id inside a task, so that a match's lines can be found."""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import Any

from pythonjsonlogger.json import JsonFormatter as _JsonFormatter


class JsonFormatter(_JsonFormatter):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("rename_fields", {"levelname": "level", "name": "logger"})
        super().__init__("%(levelname)s %(name)s %(message)s %(process)d", *args, **kwargs)

    def add_fields(self, log_data: dict[str, Any], record: logging.LogRecord, message_dict: dict[str, Any]) -> None:
        super().add_fields(log_data, record, message_dict)
        log_data["time"] = datetime.fromtimestamp(record.created, tz=UTC).isoformat(timespec="milliseconds")
        task = _current_task()
        if task is not None:
            log_data["task"], log_data["task_id"] = task


def _current_task() -> tuple[str, str] | None:
    try:
        from celery import current_task
    except ImportError:  # pragma: no cover - celery is a dependency of the platform
        return None
    if not current_task or not current_task.request.id:  # a proxy: false outside a task
        return None
    return current_task.name, current_task.request.id
