"""Writes about bots: create, upload a version, validate it, retire it, register built-ins."""

from __future__ import annotations

import hashlib
import logging
import secrets
from collections.abc import Collection, Mapping
from datetime import datetime, timedelta
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.db import IntegrityError, transaction
from django.db.models import Case, F, Max, Q, Value, When
from django.utils import timezone

from lineit.botkit.failures import PLATFORM_FAULTS
from lineit.botkit.limits import Limits
from lineit.botkit.schedule import MatchSpec, new_seed
from lineit.botkit.sources import BUILTIN_DIR, BUILTIN_NAMES
from lineit.botkit.untrusted import storable_text
from lineit.builtin.versions import builtin_version_hash
from lineit_platform.confusables import name_key
from lineit_platform.errors import ApplicationError, Conflict, Forbidden
from lineit_platform.queueing import INTERACTIVE, WAITED_FOR, resend_lost, send_after_commit

from .code_cache import version_source
from .models import NAME_LOOKS_LIKE, Bot, BotVersion
from .runner import sandbox_match_run
from .signals import ACTIVATED, RETIRED, version_changed, version_off_ladder, version_validation_ended
from .storage import bot_code_storage
from .uploads import UploadLimits, check_upload

logger = logging.getLogger(__name__)


def upload_limits() -> UploadLimits:
    return UploadLimits(
        max_bytes=settings.BOT_UPLOAD_MAX_BYTES,
        max_files=settings.BOT_ZIP_MAX_FILES,
        max_file_bytes=settings.BOT_ZIP_MAX_FILE_BYTES,
        max_total_bytes=settings.BOT_ZIP_MAX_TOTAL_BYTES,
        max_ratio=settings.BOT_ZIP_MAX_RATIO,
    )


NAME_TAKEN = "name: a bot with this name already exists (names are compared in any case)"


def bot_create(*, owner: AbstractBaseUser, name: str, description: str = "", is_builtin: bool = False) -> Bot:
    """A new bot. Its name is unique in any case (the constraint unique_bot_name_any_case) and up
    to look-alikes (Bot.name_key: "rand0m" beside "random"), so of two simultaneous requests for
    one name, or for two look-alikes, one makes the bot and the other is told why."""
    bot = Bot(owner=owner, name=name, description=description, is_builtin=is_builtin)
    try:
        bot.full_clean(validate_unique=False, validate_constraints=False)
    except ValidationError as error:
        messages = "; ".join(f"{field}: {' '.join(texts)}" for field, texts in error.message_dict.items())
        raise ApplicationError(messages) from None
    if Bot.objects.filter(name__iexact=name).exists():
        raise ApplicationError(NAME_TAKEN)
    try:
        with transaction.atomic():
            bot.save()
    except IntegrityError:
        if Bot.objects.filter(name__iexact=name).exists():  # taken in the meantime
            raise ApplicationError(NAME_TAKEN) from None
        if Bot.objects.filter(name_key=name_key(name)).exists():  # a look-alike, in the meantime
            raise ApplicationError(f"name: {NAME_LOOKS_LIKE}") from None
        raise
    return bot


def bot_code_store(*, content: bytes, sha256: str, kind: str) -> str:
    """Keep the code in the bot storage (bots/storage.py) under its content hash; its name there.
    Content-addressed, so a file stored already is not written again."""
    storage = bot_code_storage()
    name = f"versions/{sha256}/bot.{kind}"
    if not storage.exists(name):
        stored = storage.save(name, ContentFile(content))
        if stored != name:  # a storage that renames on a clash would break the content address
            raise ApplicationError(f"the bot storage kept the code as {stored!r}, not {name!r}")
    return name


@transaction.atomic
def bot_version_upload(
    *, bot: Bot, uploaded_by: AbstractBaseUser, filename: str, content: bytes, validate: bool = True
) -> BotVersion:
    """Check the upload at the door, store it as a new version in ``validating`` and queue its
    validation game. Anything refused at the door raises UploadRejected and stores nothing."""
    if bot.owner_id != uploaded_by.pk and not getattr(uploaded_by, "is_staff", False):
        raise Forbidden(f"{bot.name} belongs to someone else")
    kind = check_upload(filename, content, upload_limits())
    sha256 = hashlib.sha256(content).hexdigest()
    bot = Bot.objects.select_for_update().get(pk=bot.pk)  # serialises version numbers per bot
    # A rejected or retired twin does not count: the same file may be tried again as a new version.
    twin = bot.versions.filter(
        sha256=sha256, status__in=[BotVersion.Status.VALIDATING, BotVersion.Status.ACTIVE]
    ).first()
    if twin is not None:
        raise Conflict(f"this file is already {twin.label} ({twin.status})")
    version = _version_create(
        bot=bot,
        content=content,
        sha256=sha256,
        kind=kind,
        original_name=Path(filename).name[:255],
        uploaded_by=uploaded_by,
        validation_sent_at=timezone.now() if validate else None,
    )
    if validate:
        _queue_validation(version.pk)
    return version


def _version_create(
    *,
    bot: Bot,
    content: bytes,
    sha256: str,
    kind: str,
    original_name: str,
    uploaded_by: AbstractBaseUser,
    **fields: object,
) -> BotVersion:
    """The next version of ``bot``, its code stored first. The caller holds the bot's row
    (select_for_update), which serialises version numbers per bot."""
    number = (bot.versions.aggregate(top=Max("number"))["top"] or 0) + 1
    return BotVersion.objects.create(
        bot=bot,
        number=number,
        kind=kind,
        original_name=original_name,
        path=bot_code_store(content=content, sha256=sha256, kind=kind),
        sha256=sha256,
        size=len(content),
        uploaded_by=uploaded_by,
        **fields,
    )


VALIDATE_TASK = "bots.tasks.bot_version_validate_task"


def _queue_validation(version_id: int) -> None:
    send_after_commit(
        VALIDATE_TASK,
        version_id,
        what=f"the validation of version {version_id}",
        priority=WAITED_FOR,  # before placement, SPRT and bulk work (lineit_platform/queueing.py)
    )


@transaction.atomic
def bot_validations_resend(*, now: datetime | None = None) -> int:
    """Send again the validation of every version still validating
    BOT_VALIDATION_RESEND_AFTER_SECONDS after it was last sent whose message the broker no longer
    holds (it was lost: the broker was down at the upload, or a worker dropped it; one still
    waiting behind other validations is not sent twice). Validating twice is harmless: only a
    version still validating is played, and only one result is written. Returns how many were sent."""
    now = now or timezone.now()
    before = now - timedelta(seconds=settings.BOT_VALIDATION_RESEND_AFTER_SECONDS)
    stuck = resend_lost(
        BotVersion.objects.filter(status=BotVersion.Status.VALIDATING),
        sent_at="validation_sent_at",
        before=before,
        now=now,
        send_one=_queue_validation,
        task=VALIDATE_TASK,
        queues=[INTERACTIVE],
    )
    if stuck:
        logger.info("validations sent again: %s", stuck)
    return len(stuck)


def bot_version_validate(*, version_id: int) -> BotVersion:
    """Play the validation games: the first BOT_VALIDATION_GAMES games of what a bot sees as a
    two-seat ladder match, inside the sandbox.

    Any failure that is the bot's fault rejects the version, saying exactly why. A platform
    failure (no sandbox, a sandbox that did not start) leaves it ``validating`` and raises, so the
    task retries it."""
    version = BotVersion.objects.select_related("bot").get(pk=version_id)
    if version.status != BotVersion.Status.VALIDATING:
        return version
    spec, entrants = validation_match(version)
    result = sandbox_match_run(spec=spec, sources=[version_source(entrant) for entrant in entrants], limits=Limits())
    mine = {index for index, entrant in enumerate(entrants) if entrant.pk == version.pk}
    failures = [
        failure
        for game in result.games
        for failure in game.failures
        if failure.kind not in PLATFORM_FAULTS and game.seats[failure.seat] in mine
    ]
    if failures:
        first = failures[0]
        # The kind and where first, in the platform's words (public: BotVersion.rejection_summary),
        # then the failure's message, which may quote the bot (its owner's).
        where = f", decision {first.decision}" if first.decision >= 0 else ""
        reason = f"validation game failed: {first.kind} in game {first.game + 1}{where}: {first.message}"
        version = bot_version_reject(version=version, reason=reason, stderr=first.stderr_tail, tier=result.tier)
    else:
        version = bot_version_activate(version=version, tier=result.tier)
    version_validation_ended.send(sender=BotVersion, version_id=version.pk)  # its owner is told (notifications)
    return version


def validation_match(version: BotVersion) -> tuple[MatchSpec, list[BotVersion]]:
    """The validation's match, which a bot cannot tell from a ladder match of two (fair play:
    docs/bot-interface.md, "One deal, one process"): a seed drawn now from the system (a fixed
    seed would be a deck the bot could compute), a ruleset of the ladder's, duplicate deals, the
    ladder's number of games (its first BOT_VALIDATION_GAMES are played), the version in a seat
    drawn at random against an active built-in version, as the ladder seats them (the version
    itself on a platform that has none: a bot can tell that match apart, but then it has no
    other to tell it from)."""
    opponents = list(
        BotVersion.objects.select_related("bot").filter(
            bot__is_builtin=True, status=BotVersion.Status.ACTIVE, ladder_removed_at=None
        )
    )
    opponent = secrets.choice(opponents) if opponents else version
    entrants = [version, opponent] if secrets.randbelow(2) == 0 else [opponent, version]
    games = max(2 * settings.LADDER_DEALS_PER_MATCH, settings.BOT_VALIDATION_GAMES)
    spec = MatchSpec(
        num_players=2,
        games=games,
        ruleset=secrets.choice(settings.LADDER_RULESETS),
        seed=new_seed(),
        rotate_seats=True,
        duplicate_deals=True,
        shard=range(settings.BOT_VALIDATION_GAMES),
    )
    return spec, entrants


def _set_status(version: BotVersion, *, expected: list[str], fields: dict[str, object]) -> BotVersion:
    """Write ``fields`` if the version is still in one of the ``expected`` states (in one
    conditional UPDATE, so two writers cannot both win); either way, the version as it now is."""
    updated = BotVersion.objects.filter(pk=version.pk, status__in=expected).update(**fields)
    if updated:
        for name, value in fields.items():
            setattr(version, name, value)
    else:
        version.refresh_from_db()
    return version


def bot_version_activate(*, version: BotVersion, tier: str = "") -> BotVersion:
    """The version passed its validation: active, and its placement starts (when the ladder runs
    and PLACEMENT_GAMES is not 0). Announced (bots/signals.py: version_changed): the tournaments
    app schedules its first placement match at once rather than at beat's next tick, and starts
    its SPRT."""
    now = timezone.now()
    fields: dict[str, object] = {"status": BotVersion.Status.ACTIVE, "validated_at": now, "sandbox_tier": tier}
    placement = settings.LADDER_ENABLED and settings.PLACEMENT_GAMES > 0
    if placement:
        fields["placement_started_at"] = now
    version = _set_status(version, expected=[BotVersion.Status.VALIDATING], fields=fields)
    version_changed.send(
        sender=BotVersion,
        version_id=version.pk,
        change=ACTIVATED,
        placement_started=placement and version.placement_started_at == now,
    )
    return version


def bot_version_reject(*, version: BotVersion, reason: str, stderr: str = "", tier: str = "") -> BotVersion:
    fields = {
        "status": BotVersion.Status.REJECTED,
        "rejection_reason": storable_text(reason),  # they quote the bot, which may write NUL
        "rejection_stderr": storable_text(stderr)[-4000:],
        "validated_at": timezone.now(),
        "sandbox_tier": tier,
    }
    return _set_status(version, expected=[BotVersion.Status.VALIDATING], fields=fields)


def bot_version_retire(*, version: BotVersion, retired_by: AbstractBaseUser | None = None) -> BotVersion:
    """Take a version out of play, whatever state it is in. An active one keeps its matches and
    ratings but plays no more ladder matches; one still validating (its validation stuck, say)
    is never validated: a validation game that comes later finds nothing to do. A rejected or
    retired version is out of play already and is returned as it is. ``retired_by``, when given,
    must own the bot or be staff."""
    if retired_by is not None:
        _may_manage(retired_by, version)
    fields = {"status": BotVersion.Status.RETIRED, "retired_at": timezone.now()}
    # Announced whatever state it was in (the tournaments app reads the row after commit).
    version_changed.send(sender=BotVersion, version_id=version.pk, change=RETIRED)
    return _set_status(version, expected=[BotVersion.Status.ACTIVE, BotVersion.Status.VALIDATING], fields=fields)


def _may_manage(user: AbstractBaseUser, version: BotVersion) -> None:
    if version.bot.owner_id != user.pk and not getattr(user, "is_staff", False):
        raise Forbidden(f"{version.bot.name} belongs to someone else")


@transaction.atomic(savepoint=False)  # inside match_record_result's transaction: no savepoint queries
def bot_versions_match_health_record(
    *, match_id: int, failing: Mapping[int, str], clean: Collection[int]
) -> list[BotVersion]:
    """Count one recorded ranked match in each entrant's run of failing matches
    (``BotVersion.ladder_failing_matches``): one more for the ``failing`` versions (version id ->
    what its first failure was, "exception in game 2"), back to 0 for the ``clean`` ones. One
    UPDATE, which writes no row for a clean version whose run is 0 already; a version whose run
    reaches LADDER_MAX_CONSECUTIVE_FAILING_MATCHES is taken off the ladder (one more query, only
    when some version failed). Called by match_record_result in its transaction. Returns the
    versions taken off."""
    if not failing and not clean:
        return []
    BotVersion.objects.filter(Q(pk__in=list(failing)) | Q(pk__in=list(clean), ladder_failing_matches__gt=0)).update(
        ladder_failing_matches=Case(When(pk__in=list(failing), then=F("ladder_failing_matches") + 1), default=Value(0))
    )
    limit = settings.LADDER_MAX_CONSECUTIVE_FAILING_MATCHES
    if not failing or limit <= 0:
        return []
    reached = BotVersion.objects.select_related("bot").filter(
        pk__in=list(failing),
        ladder_failing_matches__gte=limit,
        ladder_removed_at__isnull=True,
        status=BotVersion.Status.ACTIVE,
    )
    return [
        bot_version_ladder_remove(
            version=version,
            reason=f"failed in {version.ladder_failing_matches} ranked matches in a row "
            f"(the last, match {match_id}: {failing[version.pk]})",
            match_id=match_id,
        )
        for version in reached
    ]


def bot_version_ladder_remove(*, version: BotVersion, reason: str, match_id: int | None = None) -> BotVersion:
    """Take the version off the ladder, saying why. It stays active (test matches, tournaments,
    a ranked match already queued still plays); the ladder and placement no longer schedule it.
    Already off: returned as it is, its first reason kept."""
    fields = {
        "ladder_removed_at": timezone.now(),
        "ladder_removed_reason": storable_text(reason)[:2000],
        "ladder_removed_match": match_id,
    }
    if BotVersion.objects.filter(pk=version.pk, ladder_removed_at__isnull=True).update(**fields):
        for name, value in fields.items():
            setattr(version, name, value)
        logger.info("%s taken off the ladder: %s", version, reason)
        version_off_ladder.send(sender=BotVersion, version_id=version.pk)  # its owner is told (notifications)
    else:
        version.refresh_from_db()
    return version


@transaction.atomic
def bot_version_ladder_restore(*, version: BotVersion, restored_by: AbstractBaseUser) -> BotVersion:
    """Put a version taken off the ladder back on it (its owner or staff), its run of failing
    matches back to 0. One on the ladder already is returned as it is; one no longer active
    cannot go back (ApplicationError, nothing changed)."""
    _may_manage(restored_by, version)
    version = BotVersion.objects.select_for_update().select_related("bot").get(pk=version.pk)
    if version.ladder_removed_at is None:
        return version
    if version.status != BotVersion.Status.ACTIVE:
        raise Conflict(f"{version.label} is {version.status}; only an active version can go back on the ladder")
    fields = {"ladder_removed_at": None, "ladder_removed_reason": "", "ladder_removed_match": None}
    BotVersion.objects.filter(pk=version.pk).update(ladder_failing_matches=0, **fields)
    version.refresh_from_db()
    logger.info("%s put back on the ladder by %s", version, restored_by)
    return version


def bot_version_placement_end(*, version: BotVersion) -> BotVersion:
    """The version's placement is over (its rating is settled): it joins the ladder's rhythm.
    Idempotent."""
    now = timezone.now()
    if BotVersion.objects.filter(
        pk=version.pk, placement_started_at__isnull=False, placement_ended_at__isnull=True
    ).update(placement_ended_at=now):
        version.placement_ended_at = now
    else:
        version.refresh_from_db()
    return version


def system_user() -> AbstractBaseUser:
    user, created = get_user_model().objects.get_or_create(username=settings.SYSTEM_USERNAME)
    if created:
        user.set_unusable_password()
        user.save(update_fields=["password"])
    return user


@transaction.atomic
def builtin_bots_register(*, names: tuple[str, ...] = BUILTIN_NAMES) -> list[BotVersion]:
    """Register each built-in bot for the system user; a changed file, or a changed built-in
    module it borrows (lineit.builtin.versions), becomes a new version and retires the previous
    one. Built-ins are trusted code from this repository: they are active at once (the ladder
    still runs them in the sandbox). Idempotent."""
    owner = system_user()
    registered = []
    for name in names:
        path = BUILTIN_DIR / f"{name}_bot.py"
        if not path.is_file():
            logger.warning("built-in bot %s is missing (%s)", name, path)
            continue
        content = path.read_bytes()
        sha256 = builtin_version_hash(path)  # the file, and the built-in modules it borrows
        bot, _ = Bot.objects.get_or_create(
            name=name, defaults={"owner": owner, "is_builtin": True, "description": f"built-in {name} bot"}
        )
        bot = Bot.objects.select_for_update().get(pk=bot.pk)
        current = bot.versions.filter(sha256=sha256).first()
        if current is None:
            for old in bot.versions.filter(status=BotVersion.Status.ACTIVE):
                bot_version_retire(version=old)
            current = _version_create(
                bot=bot,
                content=content,
                sha256=sha256,
                kind="py",  # BotVersion.Kind.FILE, a file's ending as check_upload names it
                original_name=path.name,
                uploaded_by=owner,
                status=BotVersion.Status.ACTIVE,
                validated_at=timezone.now(),
            )
        registered.append(current)
    return registered
