"""Read-only queries that the pages and the API share. Nothing here writes."""

from __future__ import annotations

from dataclasses import dataclass

from bots.models import Bot
from lineit.stats.intervals import wilson_interval
from tournaments.models import Game, Match, MatchEntrant


@dataclass
class HeadToHead:
    opponent: Bot
    games: int = 0
    wins: float = 0.0  # a tie counts one half
    score_difference: int = 0

    @property
    def mean_score_difference(self) -> float:
        return self.score_difference / self.games if self.games else 0.0

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.wins, self.games)


def head_to_head(bot: Bot, *, max_games: int = 20_000) -> list[HeadToHead]:
    """Against every bot met at a table: games shared, mean score difference (this bot minus
    the other) and the pairwise win rate (a better rank wins, a shared rank is half a win).

    Counts every finished match, ranked or not; games where this bot sat twice compare the
    other seats only with the first of its seats."""
    match_ids = list(
        MatchEntrant.objects.filter(version__bot=bot, match__status=Match.Status.FINISHED)
        .order_by("-match_id")
        .values_list("match_id", flat=True)
        .distinct()[:5000]
    )
    bot_of_entrant: dict[tuple[int, int], int] = {
        (match_id, index): bot_id
        for match_id, index, bot_id in MatchEntrant.objects.filter(match_id__in=match_ids).values_list(
            "match_id", "index", "version__bot_id"
        )
    }
    tables: dict[int, HeadToHead] = {}
    games = Game.objects.filter(match_id__in=match_ids).order_by("-match_id", "index")
    rows = games.values_list("match_id", "seats", "scores", "ranks")[:max_games]
    for match_id, seats, scores, ranks in rows.iterator(chunk_size=2000):
        bots = [bot_of_entrant[(match_id, entrant)] for entrant in seats]
        if bot.pk not in bots:
            continue
        mine = bots.index(bot.pk)
        for seat, other in enumerate(bots):
            if other == bot.pk:
                continue
            record = tables.setdefault(other, HeadToHead(opponent=Bot(pk=other)))
            record.games += 1
            record.score_difference += scores[mine] - scores[seat]
            record.wins += 1.0 if ranks[mine] < ranks[seat] else 0.5 if ranks[mine] == ranks[seat] else 0.0
    opponents = Bot.objects.in_bulk(tables.keys())
    for other, record in tables.items():
        record.opponent = opponents[other]
    return sorted(tables.values(), key=lambda record: (-record.games, record.opponent.name))
