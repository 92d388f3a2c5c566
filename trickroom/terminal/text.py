"""The terminal client's own sentences (prompts, help, summaries) in English and Russian.

Game events are spoken by :mod:`trickroom.narration`, exactly as the server speaks them; this table holds only
what the terminal adds around them. Keys are short ids; values are ``str.format`` templates.
"""

from __future__ import annotations

from typing import Any

HELP_EN = """\
Commands (type them, then Enter):
  play QS 7S     play these cards (a bare card list such as qs or qs 7s plays too)
  claim, c       claim 31 or more points (Bura; allowed whenever you are asked)
  announce bura  announce a combination (Bura; also: announce aces, molodka, moscow, little-moscow)
  pass, p        pass (Bura's announcement pause; Mpourloto's bidding)
  accept, a      accept the face-up suit as trumps (Mpourloto)
  name H, n H    name a suit as trumps (Mpourloto, second round)
  exchange, x    exchange your seven of trumps for the face-up card (Mpourloto); keep, k: keep it
  meld KH QH JH  declare a meld (Mpourloto); done, d: finish declaring
  a number       choose that action from the numbered list
Information:
  hand, h        your cards, grouped by suit
  table, t       the cards on the table and the last trick
  score, s       the scores (Bura's own card points only with the show_points option)
  trump          the trump suit and the face-up card
  history [N]    the last N sentences (default 20)
  legal, l       your choices now, numbered
  help, ?        this list
  quit           leave the game
Cards: rank then suit, like QS, 10H, 7d or q♠. Suits: S spades, H hearts, D diamonds, C clubs."""

HELP_RU = """\
Команды (наберите и нажмите Enter):
  play QS 7S     сыграть эти карты (можно просто перечислить карты: qs или qs 7s)
  claim, c       объявить 31 очко (бура; можно всякий раз, когда вас спрашивают)
  announce bura  объявить комбинацию (бура; также announce aces, molodka, moscow, little-moscow)
  pass, p        пас (пауза объявлений в буре; торговля в мпурлото)
  accept, a      принять масть открытой карты козырной (мпурлото)
  name H, n H    назвать козырную масть (мпурлото, второй круг)
  exchange, x    обменять семёрку козырей на открытую карту (мпурлото); keep, k: оставить
  meld KH QH JH  объявить комбинацию (мпурлото); done, d: закончить объявления
  число          выбрать ход с этим номером из списка
Сведения:
  hand, h        ваши карты по мастям
  table, t       карты на столе и прошлая взятка
  score, s       счёт (свои очки в буре — только с опцией show_points)
  trump          козырь и открытая карта
  history [N]    последние N фраз (по умолчанию 20)
  legal, l       ваши возможные ходы с номерами
  help, ?        эта справка
  quit           выйти из игры
Карты: достоинство и масть, например QS, 10H, 7d или q♠. Масти: S пики, H червы, D бубны, C трефы."""

TEXTS: dict[str, dict[str, str]] = {
    "en": {
        "help": HELP_EN,
        "hint": "Type help for the commands, legal for your choices.",
        "you": "You",
        "seating": "You are {name}, seat 1. At the table: {others}.",
        "seating_you": "You sit in seat 1. At the table: {others}.",
        "seat_entry": "{name} ({level} bot, seat {number})",
        "partner": "Your partner is {name}.",
        "bot_fallback": "The {level} bots are not available; playing against {fallback} bots.",
        "turn": "Your turn.",
        "actions": "Actions: {actions}.",
        "no_actions": "You have nothing to do now.",
        "unknown": "Unknown command: {word}. Type help for the commands.",
        "bad_number": "There is no action {number}; choose 1 to {count}.",
        "not_now": "You cannot {verb} now. Type legal for your choices.",
        "not_held": "You do not hold the {card}.",
        "need_cards": "Say which cards, for example: {example}.",
        "which": "Which one? {choices}.",
        "illegal": "That is not allowed: {reason} Nothing was changed.",
        "illegal_generic": "That is not allowed now. Nothing was changed.",
        "bad_card": "{text} is not a card: write a rank and a suit, like QS or 10H.",
        "bad_suit": "{text} is not a suit: write S, H, D or C.",
        "hand": "Your hand: {groups}.",
        "hand_empty": "You hold no cards.",
        "trumps_mark": "{suit}, trumps",
        "trump_bura": "Trumps are {suit}.",
        "face_up_stock": "The face-up card is the {card}, at the bottom of the stock of {count}.",
        "stock_left": "{count} cards in the stock.",
        "trump_mp": "Trumps are {suit}, made by {maker}.",
        "trump_mp_open": "Trumps are not chosen yet; the face-up card is the {card}.",
        "trump_none": "There are no trumps yet.",
        "table_empty": "Trick {number}: the table is empty.",
        "table_cards": "Trick {number}: {plays}.",
        "table_mp_empty": "The table is empty.",
        "table_mp": "On the table: {plays}.",
        "last_trick": "Last trick: {plays}; {winner} took it.",
        "to_act": "Waiting for {names}.",
        "score_pot": "Chips: {scores}. The pot holds {pot}.",
        "score_points": "Game points: {scores}. Target {target}.",
        "my_points": "Your card points this hand: {points}.",
        "score_teams": "Score: {scores}. Target {target}.",
        "hand_limit": "Hand {hand} of {limit}.",
        "history_empty": "Nothing has happened yet.",
        "summary_head": "Hand {hand} is over.",
        "summary_tricks": "Tricks: {list}.",
        "summary_points": "Card points: {list}.",
        "summary_claims": "Claims: {list}.",
        "summary_no_claims": "No one claimed.",
        "claim_entry": "{name} with {points}, {verdict}",
        "claim_true": "true",
        "claim_false": "false",
        "summary_winner": "Winner: {name}.",
        "summary_no_winner": "No one won the hand.",
        "summary_mp": "{team}: {tricks} tricks, {cards} card points, {melds} in melds{last}; adds {added}.",
        "summary_mp_winner": "{team} won the hand.",
        "summary_mp_level": "The hand is level.",
        "last_bonus": ", {bonus} for the last trick",
        "mesa": "Mesa: the trump makers did not score more.",
        "capo": "Capo: one team took every trick.",
        "your_team": "your team ({first} and {second})",
        "other_team": "the other team ({first} and {second})",
        "standings": "Final standings: {list}.",
        "standings_so_far": "Standings: {list}.",
        "standing_entry": "{rank}. {name}, {score}",
        "chips": "{count} chips",
        "points": "{count} points",
        "winner": "{name} wins the match.",
        "winner_you": "You win the match!",
        "no_winner": "The match has no winner.",
        "stopped": "Stopping after hand {count}, as asked.",
        "bye": "Goodbye.",
        "eof": "End of input: leaving the game.",
        "and": " and ",
        "connecting": "Connecting to {url}.",
        "connect_failed": "Cannot connect to {url}: {reason}",
        "closed": "The server closed the connection.",
        "tables": "Open tables: {list}.",
        "table_entry": "{id}, {text} {taken} of {seats} seats taken, {status}",
        "no_tables": "There are no open tables. Type create bura or create mpourloto to open one.",
        "online_hint": "Type join and a table id to sit down, tables to list them again, quit to leave.",
        "table_full": "Table {table} has no free seat; you are watching.",
        "host_hint": "You are the host. Type bot to add a bot to a free seat, start to begin.",
        "waiting": "Waiting for the game to start.",
        "not_at_table": "You are not at a table yet.",
        "not_your_turn": "It is not your turn.",
        "moving": "Moving to another server…",
        "lost": "Connection lost. Reconnecting.",
        "reconnected": "Reconnected.",
        "back_at_table": "Back at the table.",
        "stats_you": "Your statistics:",
        "stats_of": "Statistics of {name}:",
        "stats_line": "{game}: {played} played, {won} won, rating {rating}.",
        "stats_none": "No games yet: statistics count finished games with at least two people at the table.",
        "stats_guest_you": "Statistics need an account; type stats and a player's name to see theirs.",
        "stats_guest": "{name} is a guest: guests keep no statistics.",
    },
    "ru": {
        "help": HELP_RU,
        "hint": "Наберите help, чтобы узнать команды, legal — чтобы услышать свои ходы.",
        "you": "Вы",
        "seating": "Вы — {name}, место 1. За столом: {others}.",
        "seating_you": "Вы сидите на месте 1. За столом: {others}.",
        "seat_entry": "{name} (бот, уровень {level}, место {number})",
        "partner": "Ваш партнёр — {name}.",
        "bot_fallback": "Боты уровня {level} недоступны; играем с ботами уровня {fallback}.",
        "turn": "Ваш ход.",
        "actions": "Ходы: {actions}.",
        "no_actions": "Сейчас вам нечего делать.",
        "unknown": "Неизвестная команда: {word}. Наберите help, чтобы узнать команды.",
        "bad_number": "Хода {number} нет; выберите от 1 до {count}.",
        "not_now": "Сейчас нельзя сделать {verb}. Наберите legal, чтобы услышать свои ходы.",
        "not_held": "У вас нет карты {card}.",
        "need_cards": "Назовите карты, например: {example}.",
        "which": "Какой именно? {choices}.",
        "illegal": "Так нельзя: {reason} Ничего не изменилось.",
        "illegal_generic": "Сейчас так нельзя. Ничего не изменилось.",
        "bad_card": "{text} — не карта: напишите достоинство и масть, например QS или 10H.",
        "bad_suit": "{text} — не масть: напишите S, H, D или C.",
        "hand": "Ваши карты: {groups}.",
        "hand_empty": "У вас нет карт.",
        "trumps_mark": "{suit}, козыри",
        "trump_bura": "Козыри — {suit}.",
        "face_up_stock": "Открытая карта — {card}, она лежит внизу колоды из {count}.",
        "stock_left": "В колоде {count}.",
        "trump_mp": "Козыри — {suit}, назначил {maker}.",
        "trump_mp_open": "Козырь ещё не выбран; открытая карта — {card}.",
        "trump_none": "Козыря пока нет.",
        "table_empty": "Взятка {number}: на столе пусто.",
        "table_cards": "Взятка {number}: {plays}.",
        "table_mp_empty": "На столе пусто.",
        "table_mp": "На столе: {plays}.",
        "last_trick": "Прошлая взятка: {plays}; её взял {winner}.",
        "to_act": "Ждём: {names}.",
        "score_pot": "Фишки: {scores}. В банке {pot}.",
        "score_points": "Очки партии: {scores}. Играем до {target}.",
        "my_points": "Ваши очки в этой раздаче: {points}.",
        "score_teams": "Счёт: {scores}. Играем до {target}.",
        "hand_limit": "Раздача {hand} из {limit}.",
        "history_empty": "Пока ничего не произошло.",
        "summary_head": "Раздача {hand} окончена.",
        "summary_tricks": "Взятки: {list}.",
        "summary_points": "Очки в картах: {list}.",
        "summary_claims": "Заявки: {list}.",
        "summary_no_claims": "Никто не заявлял.",
        "claim_entry": "{name} с {points}, {verdict}",
        "claim_true": "верно",
        "claim_false": "ложно",
        "summary_winner": "Победитель раздачи: {name}.",
        "summary_no_winner": "Раздачу никто не выиграл.",
        "summary_mp": "{team}: взяток {tricks}, очков в картах {cards}, за комбинации {melds}{last}; получает {added}.",
        "summary_mp_winner": "{team} выиграла раздачу.",
        "summary_mp_level": "Раздача вничью.",
        "last_bonus": ", за последнюю взятку {bonus}",
        "mesa": "Меса: назначившие козырь не набрали больше.",
        "capo": "Капо: одна команда взяла все взятки.",
        "your_team": "ваша команда ({first} и {second})",
        "other_team": "команда соперников ({first} и {second})",
        "standings": "Итог: {list}.",
        "standings_so_far": "Положение: {list}.",
        "standing_entry": "{rank}. {name}, {score}",
        "chips": "фишек: {count}",
        "points": "очков: {count}",
        "winner": "Партию выиграл(а) {name}.",
        "winner_you": "Вы выиграли партию!",
        "no_winner": "У партии нет победителя.",
        "stopped": "Остановка после раздачи {count}, как просили.",
        "bye": "До свидания.",
        "eof": "Ввод закончился: выходим из игры.",
        "and": " и ",
        "connecting": "Подключаемся к {url}.",
        "connect_failed": "Не удалось подключиться к {url}: {reason}",
        "closed": "Сервер закрыл соединение.",
        "tables": "Открытые столы: {list}.",
        "table_entry": "{id}, {text} занято мест: {taken} из {seats}, {status}",
        "no_tables": "Открытых столов нет. Наберите create bura или create mpourloto, чтобы открыть стол.",
        "online_hint": "Наберите join и номер стола, чтобы сесть; tables — список столов; quit — выход.",
        "table_full": "За столом {table} нет свободного места; вы смотрите игру.",
        "host_hint": "Вы хозяин стола. Наберите bot, чтобы посадить бота на свободное место, start — начать игру.",
        "waiting": "Ждём начала игры.",
        "not_at_table": "Вы ещё не за столом.",
        "not_your_turn": "Сейчас не ваш ход.",
        "moving": "Переход на другой сервер…",
        "lost": "Связь потеряна. Переподключаюсь.",
        "reconnected": "Связь восстановлена.",
        "back_at_table": "Снова за столом.",
        "stats_you": "Ваша статистика:",
        "stats_of": "Статистика игрока {name}:",
        "stats_line": "{game}: сыграно {played}, выиграно {won}, рейтинг {rating}.",
        "stats_none": "Игр пока нет: статистика учитывает законченные игры, где за столом было не меньше двух человек.",
        "stats_guest_you": ("Статистика ведётся только для учётных записей; наберите stats и имя игрока, "
                            "чтобы увидеть его."),
        "stats_guest": "{name} — гость: у гостей нет статистики.",
    },
}


def say(key: str, lang: str = "en", **params: Any) -> str:
    """The client's sentence ``key`` in ``lang`` (English when the language or key is missing)."""
    table = TEXTS.get(lang, TEXTS["en"])
    template = table.get(key) or TEXTS["en"][key]
    return template.format(**params) if params else template
