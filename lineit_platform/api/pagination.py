"""Every list is paginated. Small tables are numbered pages; the long, append-only ones (matches,
games, rating history) use cursors, which cost no COUNT and never skip or repeat a row while new
rows arrive."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from rest_framework.exceptions import NotFound
from rest_framework.pagination import Cursor, CursorPagination, PageNumberPagination
from rest_framework.request import Request


class PagePagination(PageNumberPagination):
    page_size_query_param = "page_size"
    max_page_size = settings.API_MAX_PAGE_SIZE

    def start_rank(self) -> int:
        """1-based position of the first row of the current page."""
        return self.page.start_index() if getattr(self, "page", None) is not None else 1


class NewestFirstCursorPagination(CursorPagination):
    ordering = "-id"
    page_size_query_param = "page_size"
    max_page_size = settings.API_MAX_PAGE_SIZE

    def decode_cursor(self, request: Request) -> Cursor | None:
        """DRF's, and a position that is not a whole number (these lists are ordered by id) is
        an invalid cursor too, not a server error when the query converts it."""
        cursor: Any = super().decode_cursor(request)
        if cursor is not None and cursor.position is not None:
            try:
                int(cursor.position)
            except ValueError:
                raise NotFound(self.invalid_cursor_message) from None
        return cursor


class OldestFirstCursorPagination(NewestFirstCursorPagination):
    ordering = "id"
