// Every word the page shows or says comes from the server's catalogs: /i18n/<lang>.json (built by
// trickroom/narration/web.py from the same gettext files the room speaks with, revalidated by its ETag). Game
// sentences come ready-made in the room's "text"; this module reads the page's own labels, help and answers.
//
// t("menu") is a message of the web catalog; t("room:action.pass") one of another catalog (cards, room, bura,
// mpourloto). tn(key, n, params) picks a plural form with the catalog's own Plural-Forms rule, as ngettext does.

const loaded = new Map(); // lang -> bundle
let bundle = null;
let plural = () => 0;
let current = "en";

// The languages the room speaks, in its order, each named in itself: [["en", "English"], ["ru", "Русский"], ...].
export function languages() {
  return bundle ? bundle.languages : [["en", "English"]];
}

// The catalog's rule is gettext's Plural-Forms expression, a C expression of n: read it once into a function,
// without eval (so that a Content-Security-Policy need not allow it). Precedence as in C: ?: || && == != < <= > >=
// + - * / % and unary !.
function pluralRule(expr) {
  const tokens = expr.match(/\d+|n|&&|\|\||[=!<>]=|[-+*/%<>?:()!]/g) || [];
  let at = 0;
  const take = (wanted) => {
    const token = tokens[at++];
    if (wanted !== undefined && token !== wanted) throw new Error(`plural rule ${expr}: ${wanted} expected`);
    return token;
  };
  const binary = (operand, operators) => () => {
    let left = operand();
    while (tokens[at] in operators) {
      const op = operators[take()];
      const [l, r] = [left, operand()];
      left = (n) => op(l(n), r(n));
    }
    return left;
  };
  const unary = () => {
    const token = take();
    if (token === "!") { const inner = unary(); return (n) => Number(!inner(n)); }
    if (token === "(") { const inner = conditional(); take(")"); return inner; }
    if (token === "n") return (n) => n;
    if (/^\d+$/.test(token ?? "")) { const value = Number(token); return () => value; }
    throw new Error(`plural rule ${expr}: unexpected ${token}`);
  };
  const product = binary(unary, { "*": (a, b) => a * b, "/": (a, b) => Math.trunc(a / b), "%": (a, b) => a % b });
  const sum = binary(product, { "+": (a, b) => a + b, "-": (a, b) => a - b });
  const order = binary(sum, { "<": (a, b) => Number(a < b), "<=": (a, b) => Number(a <= b),
                              ">": (a, b) => Number(a > b), ">=": (a, b) => Number(a >= b) });
  const equality = binary(order, { "==": (a, b) => Number(a === b), "!=": (a, b) => Number(a !== b) });
  const and = binary(equality, { "&&": (a, b) => Number(Boolean(a && b)) });
  const or = binary(and, { "||": (a, b) => Number(Boolean(a || b)) });
  const conditional = () => {
    const test = or();
    if (tokens[at] !== "?") return test;
    take("?");
    const yes = conditional();
    take(":");
    const no = conditional();
    return (n) => (test(n) ? yes(n) : no(n));
  };
  const rule = conditional();
  if (at !== tokens.length) throw new Error(`plural rule ${expr}: unexpected ${tokens[at]}`);
  return (n) => Number(rule(Math.abs(Math.trunc(n))));
}

export async function loadLang(lang) {
  if (!loaded.has(lang)) {
    const response = await fetch(`i18n/${encodeURIComponent(lang)}.json`, { cache: "no-cache" });
    if (!response.ok) throw new Error(`no words for ${lang}: ${response.status}`);
    loaded.set(lang, await response.json());
  }
  return loaded.get(lang);
}

// Use a loaded language (loadLang first); an unknown one falls back to English.
export function setLang(lang) {
  current = loaded.has(lang) ? lang : "en";
  bundle = loaded.get(current) || null;
  plural = bundle ? pluralRule(bundle.plural.expr) : () => 0;
  document.documentElement.lang = current;
}

export function lang() {
  return current;
}

function message(key) {
  const at = key.indexOf(":");
  const domain = at > 0 ? key.slice(0, at) : "web";
  return bundle?.messages?.[domain]?.[at > 0 ? key.slice(at + 1) : key];
}

// A Python str.format template, filled the same way: {name} (a conversion such as {text!r} is ignored).
function format(template, params) {
  return template.replace(/\{(\w+)(![rsa])?\}/g, (whole, name) => (name in params ? String(params[name]) : whole));
}

export function t(key, params = {}) {
  let found = message(key);
  if (Array.isArray(found)) found = found[0];
  return found === undefined ? key : format(found, params);
}

export function tn(key, n, params = {}) {
  const found = message(key);
  if (!Array.isArray(found)) return found === undefined ? key : format(found, params);
  return format(found[Math.min(plural(n), found.length - 1)], params);
}

export function capital(text) {
  return text ? text[0].toUpperCase() + text.slice(1) : text;
}

// Card names as narration/names.py says them: the nominative (lists) or the accusative (after a verb).
function rankName(rank, grammaticalCase) {
  return t(`cards:rank.${rank}${grammaticalCase === "acc" ? ".acc" : ""}`);
}

export function cardName(code, grammaticalCase = "nom") {
  return t("cards:card", { rank: rankName(code[0], grammaticalCase), suit: t(`cards:suit.${code[1]}.of`) });
}

export function cardList(codes) {
  return codes.map((code) => cardName(code)).join(", ");
}

// Several cards as one phrase ("queen and seven of spades"), as the room's sentences say them.
export function cardsPhrase(codes, grammaticalCase = "nom") {
  const joined = (items) => (items.length < 2 ? items.join("")
    : t("cards:list.last", { rest: items.slice(0, -1).join(", "), last: items[items.length - 1] }));
  if (!codes.length) return t("cards:nothing");
  if (codes.length > 1 && codes.every((code) => code[1] === codes[0][1])) {
    return t("cards:cards.same_suit", { ranks: joined(codes.map((code) => rankName(code[0], grammaticalCase))),
                                        suit: t(`cards:suit.${codes[0][1]}.of`) });
  }
  return joined(codes.map((code) => cardName(code, grammaticalCase)));
}

// Groups that hold commas themselves, one after another (Greek, which reads ";" as a question mark, has its own).
export function grouped(items) {
  return items.reduce((rest, last) => (rest === null ? last : t("cards:list.groups", { rest, last })), null) ?? "";
}

export function suitName(suit) {
  return t(`cards:suit.${suit}`);
}

export function suitTitle(suit) {
  return t(`cards:suit.${suit}.title`);
}

export function kindName(kind, grammaticalCase = "nom") {
  return t(`bura:bura.kind.${kind}${grammaticalCase === "acc" ? ".acc" : ""}`);
}

export function levelName(level) {
  return t(`room:bot.level.${level}`);
}

// An action as a button names it: the room's own words for it (room.po action.<verb>), with a capital.
export function actionText(action) {
  const [verb, ...rest] = action.split(" ");
  const params = {
    cards: cardsPhrase(rest), cards_acc: cardsPhrase(rest, "acc"), suit: rest[0] ? suitName(rest[0]) : "",
    kind: rest[0] ? kindName(rest[0]) : "", kind_acc: rest[0] ? kindName(rest[0], "acc") : "",
  };
  const text = t(`room:action.${verb}`, params);
  return text === `room:action.${verb}` ? action : capital(text);
}

// Fill every element marked with data-i18n (text), data-i18n-label (aria-label) or data-i18n-placeholder, and
// every language menu (data-languages) with the languages the server speaks, each named in itself.
export function applyStatic(root = document) {
  for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const el of root.querySelectorAll("[data-i18n-label]")) el.setAttribute("aria-label", t(el.dataset.i18nLabel));
  for (const el of root.querySelectorAll("[data-i18n-placeholder]")) el.placeholder = t(el.dataset.i18nPlaceholder);
  for (const select of root.querySelectorAll("select[data-languages]")) {
    if (select.options.length === languages().length) continue;
    select.replaceChildren(...languages().map(([code, name]) => {
      const option = document.createElement("option");
      option.value = code;
      option.lang = code;
      option.textContent = name;
      return option;
    }));
  }
}
