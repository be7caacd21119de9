"""Bots and their versions. A version is one uploaded file, kept for ever and tied to its matches."""

from __future__ import annotations

import re
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import RegexValidator
from django.db import models
from django.db.models import Q
from django.db.models.functions import Lower

from lineit_platform.confusables import name_key

NAME_LOOKS_LIKE = (
    "a bot with a name that looks like this one exists (a digit for a letter, such as 0 for O or 1 "
    "for l, rn for m, or another case); choose another"
)

BOT_NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]{1,39}$"
# The platform's own words at the start of a rejection reason (bots.services writes them): the
# failure's kind and where. What follows is the failure's message, which may quote the bot.
REJECTION_SUMMARY = re.compile(r"validation game failed: [a-z_]+(?: in game [0-9]+(?:, decision [0-9]+)?)?")


class Bot(models.Model):
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="bots")
    name = models.CharField(
        max_length=40,
        unique=True,
        validators=[RegexValidator(BOT_NAME_PATTERN, "2-40 letters, digits, '.', '_' or '-'")],
    )
    # The name as a reader sees it (lineit_platform/confusables.py): unique, so nobody may enter
    # "rand0m" or "rnybot" beside "random" or "mybot". Set from the name whenever it is saved.
    name_key = models.CharField(max_length=64, unique=True, editable=False)
    description = models.TextField(blank=True)
    is_builtin = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        # A name is taken in any case: nobody may enter "Random" beside the built-in "random".
        constraints = [models.UniqueConstraint(Lower("name"), name="unique_bot_name_any_case")]

    def __str__(self) -> str:
        return self.name

    def _name_changed(self) -> bool:
        if self.pk is None or not self.name_key:
            return True
        return not Bot.objects.filter(pk=self.pk, name=self.name).exists()

    def clean(self) -> None:
        """A name a reader could take for another bot's is refused (the admin's form, bot_create)."""
        if not self._name_changed():
            return
        found = Bot.objects.exclude(pk=self.pk).filter(Q(name__iexact=self.name) | Q(name_key=name_key(self.name)))
        taken = found.values_list("name", flat=True).first()  # one read: a racing twin is seen once
        # The same name in another case is the unique constraint's to say.
        if taken is not None and taken.casefold() != self.name.casefold():
            raise ValidationError({"name": NAME_LOOKS_LIKE})

    def save(self, *args: Any, **kwargs: Any) -> None:
        # One rule of the row: its key follows its name (a look-alike fails on the unique column).
        if self._name_changed():
            self.name_key = name_key(self.name)
            if kwargs.get("update_fields") is not None:
                kwargs["update_fields"] = {*kwargs["update_fields"], "name_key"}
        super().save(*args, **kwargs)


def version_label(bot_name: str, number: int) -> str:
    """How a version is named wherever it is shown: ``mybot@v3``."""
    return f"{bot_name}@v{number}"


class BotVersionQuerySet(models.QuerySet["BotVersion"]):
    def active(self) -> BotVersionQuerySet:
        return self.filter(status=BotVersion.Status.ACTIVE)

    def in_placement(self) -> BotVersionQuerySet:
        """Versions still playing their placement games (docs/platform.md, "Placement")."""
        return self.filter(placement_started_at__isnull=False, placement_ended_at__isnull=True)

    def on_ladder(self) -> BotVersionQuerySet:
        """Active versions the ladder schedules: not taken off it, placement over (or never had)."""
        return (
            self.active()
            .filter(ladder_removed_at__isnull=True)
            .exclude(placement_started_at__isnull=False, placement_ended_at__isnull=True)
        )


class BotVersion(models.Model):
    class Status(models.TextChoices):
        VALIDATING = "validating"
        ACTIVE = "active"
        REJECTED = "rejected"
        RETIRED = "retired"

    class Kind(models.TextChoices):
        FILE = "py", "Python file"
        PACKAGE = "zip", "zip package"

    bot = models.ForeignKey(Bot, on_delete=models.PROTECT, related_name="versions")
    number = models.PositiveIntegerField()
    kind = models.CharField(max_length=3, choices=Kind.choices)
    original_name = models.CharField(max_length=255)
    # The code's name in the bot storage (bots/storage.py): versions/<sha256>/bot.<kind>.
    path = models.CharField(max_length=255)
    sha256 = models.CharField(max_length=64, db_index=True)
    size = models.PositiveIntegerField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.VALIDATING, db_index=True)
    rejection_reason = models.TextField(blank=True)
    # The bot's stderr during validation: shown to its owner only.
    rejection_stderr = models.TextField(blank=True)
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="uploaded_versions"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    validated_at = models.DateTimeField(null=True, blank=True)
    # When the validation game was last sent to the workers; the sweeper sends it again when the
    # version is still validating BOT_VALIDATION_RESEND_AFTER_SECONDS later (a lost message).
    validation_sent_at = models.DateTimeField(null=True, blank=True)
    retired_at = models.DateTimeField(null=True, blank=True)
    sandbox_tier = models.CharField(max_length=32, blank=True)
    # Failure health (docs/platform.md, "Failure health"): the ranked matches in a row, up to the
    # last one recorded, in which this version forfeited at least one game by its own fault;
    # written with each ranked match's result (bots.services.bot_versions_match_health_record).
    ladder_failing_matches = models.PositiveIntegerField(default=0, db_default=0)
    # Taken off the ladder (bot_version_ladder_remove): when, why, and the match that made it
    # (a plain id: bots never reaches up to tournaments). Cleared by bot_version_ladder_restore.
    ladder_removed_at = models.DateTimeField(null=True, blank=True)
    ladder_removed_reason = models.TextField(blank=True)
    ladder_removed_match = models.PositiveBigIntegerField(null=True, blank=True)
    # Placement (tournaments/services/placement.py): started when validation activates the
    # version, ended when its rating is settled; the ladder schedules it only after.
    placement_started_at = models.DateTimeField(null=True, blank=True)
    placement_ended_at = models.DateTimeField(null=True, blank=True)

    objects = BotVersionQuerySet.as_manager()

    class Meta:
        ordering = ["bot__name", "number"]
        constraints = [models.UniqueConstraint(fields=["bot", "number"], name="unique_version_number")]

    def __str__(self) -> str:
        return self.label

    @property
    def label(self) -> str:
        return version_label(self.bot.name, self.number)

    @property
    def on_ladder(self) -> bool:
        return self.status == self.Status.ACTIVE and self.ladder_removed_at is None and not self.in_placement

    @property
    def in_placement(self) -> bool:
        return self.placement_started_at is not None and self.placement_ended_at is None

    @property
    def rejection_summary(self) -> str:
        """Why the version was rejected, as anyone may read it: the failure's kind and where."""
        found = REJECTION_SUMMARY.match(self.rejection_reason)
        return found.group() if found else "the validation failed" if self.rejection_reason else ""

    @property
    def rejection_message(self) -> str:
        """The rest of the reason: the failure's message, the owner's (visible_details_for)."""
        found = REJECTION_SUMMARY.match(self.rejection_reason)
        return self.rejection_reason[found.end() :].removeprefix(": ") if found else self.rejection_reason

    def visible_details_for(self, user: object) -> bool:
        """The owner (and staff) may read the bot's own text: its failure messages and stderr."""
        return reads_text_of(user, self.bot.owner_id)


class StoredCode(models.Model):
    """The database's copy of a file the default bot storage wrote under MEDIA_ROOT
    (bots/storage.py: SharedLocalStorage), by its storage name (``versions/<sha256>/bot.py``): a
    worker on another host, which has only the database and the broker, reads the code here."""

    name = models.CharField(max_length=255, primary_key=True)
    content = models.BinaryField()
    # The sha256 of ``content`` as saved: a file under MEDIA_ROOT, or this copy, whose bytes no
    # longer have it is damaged (bots/storage.py).
    sha256 = models.CharField(max_length=64, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.name


def reads_text_of(user: object, owner_id: int | None) -> bool:
    """Whether ``user`` may read what the bots of this owner wrote (failure messages, stderr):
    the owner and staff may."""
    return bool(getattr(user, "is_staff", False)) or (owner_id is not None and getattr(user, "pk", None) == owner_id)
