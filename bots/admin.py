from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from .models import Bot, BotVersion
from .services import bot_version_retire


class BotVersionInline(admin.TabularInline):
    model = BotVersion
    extra = 0
    fields = ("number", "status", "kind", "size", "sha256", "created_at", "rejection_reason")
    readonly_fields = fields
    can_delete = False
    show_change_link = True


@admin.register(Bot)
class BotAdmin(admin.ModelAdmin):
    list_display = ("name", "owner", "is_builtin", "created_at")
    list_filter = ("is_builtin",)
    search_fields = ("name", "owner__username", "description")
    raw_id_fields = ("owner",)
    inlines = [BotVersionInline]


@admin.register(BotVersion)
class BotVersionAdmin(admin.ModelAdmin):
    list_display = ("__str__", "status", "kind", "size", "sandbox_tier", "created_at", "validated_at")
    list_filter = ("status", "kind", "bot__is_builtin", "sandbox_tier")
    search_fields = ("bot__name", "sha256", "original_name", "bot__owner__username")
    readonly_fields = (
        "bot",
        "number",
        "kind",
        "original_name",
        "path",
        "sha256",
        "size",
        "uploaded_by",
        "created_at",
        "validated_at",
        "retired_at",
        "sandbox_tier",
        "rejection_reason",
        "rejection_stderr",
    )
    list_select_related = ("bot",)
    actions = ["retire"]

    @admin.action(description="Retire the selected versions (no more ladder matches)")
    def retire(self, request: HttpRequest, queryset: QuerySet[BotVersion]) -> None:
        retired = sum(bot_version_retire(version=v).status == BotVersion.Status.RETIRED for v in queryset)
        self.message_user(request, f"{retired} version(s) retired", messages.SUCCESS)
