"""Every list is paginated. Small tables are numbered pages; the long, append-only ones (matches,
games, rating history) use cursors, which cost no COUNT and never skip or repeat a row while new
rows arrive."""

from __future__ import annotations

from django.conf import settings
from rest_framework.pagination import CursorPagination, PageNumberPagination


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


class OldestFirstCursorPagination(NewestFirstCursorPagination):
    ordering = "id"
