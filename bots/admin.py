from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.html import format_html
from django.utils.safestring import SafeString

from lineit.botkit.untrusted import safe_text

from .models import Bot, BotVersion
from .services import bot_version_retire

# A version's file name, rejection and stderr are the bot's text: shown with their control
# characters and bidi overrides escaped (lineit.botkit.untrusted.safe_text), as on the pages.


@admin.display(description="rejection reason")
def rejection_reason_text(version: BotVersion) -> str:
    return safe_text(version.rejection_reason)


@admin.display(description="rejection stderr")
def rejection_stderr_text(version: BotVersion) -> SafeString:
    return format_html('<pre class="stderr">{}</pre>', safe_text(version.rejection_stderr, keep_newlines=True))


@admin.display(description="original name")
def original_name_text(version: BotVersion) -> str:
    return safe_text(version.original_name)


class BotVersionInline(admin.TabularInline):
    model = BotVersion
    extra = 0
    fields = ("number", "status", "kind", "size", "sha256", "created_at", rejection_reason_text)
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
    exclude = ("original_name", "rejection_reason", "rejection_stderr")
    readonly_fields = (
        "bot",
        "number",
        "kind",
        original_name_text,
        "path",
        "sha256",
        "size",
        "uploaded_by",
        "created_at",
        "validated_at",
        "retired_at",
        "sandbox_tier",
        rejection_reason_text,
        rejection_stderr_text,
    )
    list_select_related = ("bot",)
    actions = ["retire"]

    @admin.action(description="Retire the selected versions (no more ladder matches)")
    def retire(self, request: HttpRequest, queryset: QuerySet[BotVersion]) -> None:
        retired = sum(bot_version_retire(version=v).status == BotVersion.Status.RETIRED for v in queryset)
        self.message_user(request, f"{retired} version(s) retired", messages.SUCCESS)
