"""Lexical similarity between a customer message and short texts (intent descriptions, conditions).

Text is reduced to *concepts*: lowercase words without stop words, lightly stemmed, and mapped
through synonym groups, so "package", "parcels" and "shipment" are all the concept `order`. A
query concept that is a near-miss spelling of a known word (rapidfuzz ratio >= 85) counts too,
at a discount.

The score of a message against one document (an intent's name and description) rewards the
message's concepts the document shares, is pulled down by concepts that belong to other
documents, and only mildly by words no document knows (details such as "shoes"). A small bonus
is added for covering more of the document. Scores lie in 0..1 and are deterministic.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from rapidfuzz import fuzz, process

STOP_WORDS = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "am",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "doing",
        "down",
        "during",
        "each",
        "few",
        "for",
        "from",
        "further",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "herself",
        "him",
        "himself",
        "his",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "itself",
        "just",
        "me",
        "more",
        "most",
        "my",
        "myself",
        "no",
        "nor",
        "not",
        "now",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "our",
        "ours",
        "ourselves",
        "out",
        "over",
        "own",
        "same",
        "she",
        "should",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "very",
        "was",
        "we",
        "were",
        "what",
        "which",
        "while",
        "who",
        "whom",
        "will",
        "with",
        "would",
        "you",
        "your",
        "yours",
        "yourself",
        "yourselves",
        "want",
        "wants",
        "wanted",
        "need",
        "needs",
        "needed",
        "like",
        "please",
        "pls",
        "plz",
        "thanks",
        "thank",
        "hi",
        "hello",
        "hey",
        "hiya",
        "yes",
        "yeah",
        "yep",
        "no",
        "nope",
        "ok",
        "okay",
        "sure",
        "also",
        "just",
        "really",
        "maybe",
        "still",
        "get",
        "got",
        "im",
        "ive",
        "id",
        "ill",
        "help",
        "let",
        "lets",
        "know",
        "think",
        "one",
        "thing",
        "things",
        "something",
        "anything",
    ]
)

# Words that frame a natural-language condition rather than say what it is about.
CONDITION_FRAME_WORDS = frozenset(
    [
        "customer",
        "customers",
        "user",
        "users",
        "caller",
        "client",
        "person",
        "asks",
        "ask",
        "asking",
        "asked",
        "says",
        "say",
        "said",
        "mentions",
        "mention",
        "mentioned",
        "talks",
        "talk",
        "talking",
        "wants",
        "request",
        "requests",
        "requesting",
        "inquires",
        "inquire",
        "inquiring",
        "question",
        "questions",
        "wishes",
        "wish",
        "tries",
        "trying",
        "topic",
        "message",
    ]
)

# Canonical concept -> words and phrases that mean the same in customer support talk.
SYNONYM_GROUPS: Mapping[str, tuple[str, ...]] = {
    "return": (
        "return",
        "returns",
        "refund",
        "refunds",
        "exchange",
        "exchanges",
        "money back",
        "send back",
        "send it back",
        "reimburse",
        "reimbursement",
        "swap",
        "replacement",
    ),
    "order": ("order", "orders", "package", "parcel", "shipment", "delivery", "deliver", "purchase"),
    "where": ("where", "track", "tracking", "trace", "locate", "location", "status", "whereabouts"),
    "arrive": ("arrive", "arrival", "come", "came", "reach", "eta", "get here", "show up", "late", "delay", "delayed"),
    "complain": (
        "complain",
        "complaint",
        "complaints",
        "unhappy",
        "dissatisfied",
        "disappointed",
        "terrible",
        "awful",
        "horrible",
        "bad",
        "poor",
        "worst",
        "angry",
        "upset",
        "frustrated",
        "rude",
        "unacceptable",
        "not happy",
        "fed up",
    ),
    "cancel": ("cancel", "cancellation", "terminate", "call off"),
    "payment": ("payment", "pay", "charge", "charged", "bill", "billing", "invoice", "transaction"),
    "price": ("price", "cost", "fee", "how much", "expensive", "cheap"),
    "account": ("account", "login", "log in", "sign in", "password", "profile", "username"),
    "human": ("human", "agent", "person", "representative", "rep", "operator", "someone real", "real person"),
    "broken": ("broken", "damaged", "defective", "faulty", "cracked", "not working", "malfunction"),
    "income": ("income", "salary", "earn", "earnings", "wage", "wages", "paycheck"),
    "loan": ("loan", "mortgage", "borrow", "lend", "financing"),
    "product": ("product", "goods", "merchandise"),
}

_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "`": "'"})
_CONTRACTIONS = [
    (re.compile(r"n't\b"), " not"),
    (re.compile(r"'(?:s|re|ve|ll|d|m)\b"), ""),
]
_WORD_RE = re.compile(r"[^\W_]+")


def stem(word: str) -> str:
    """A light suffix stripper: enough to merge plural and tense forms, never linguistic."""
    if len(word) <= 3:
        return word
    if word.endswith("ies") and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith("sses"):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    for suffix in ("ing", "ed", "ly"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "lsz":
                word = word[:-1]  # "shipping" -> "shipp" -> "ship"
            break
    if word.endswith("e") and len(word) > 3:
        word = word[:-1]
    return word


def words(text: str) -> list[str]:
    """Lowercase word tokens, with contractions folded ("where's" -> "where", "don't" -> "do not")."""
    lowered = text.translate(_APOSTROPHES).lower()
    for pattern, replacement in _CONTRACTIONS:
        lowered = pattern.sub(replacement, lowered)
    return _WORD_RE.findall(lowered)


@dataclass(frozen=True, slots=True)
class _Synonyms:
    single: Mapping[str, str]  # stemmed word -> concept
    phrases: Mapping[tuple[str, ...], str]  # word sequence -> concept
    longest_phrase: int


def _build_synonyms() -> _Synonyms:
    single: dict[str, str] = {}
    phrases: dict[tuple[str, ...], str] = {}
    for concept, members in SYNONYM_GROUPS.items():
        for member in (concept, *members):
            tokens = tuple(words(member))
            if len(tokens) == 1:
                single[stem(tokens[0])] = concept
            elif tokens:
                phrases[tokens] = concept
    longest = max((len(p) for p in phrases), default=1)
    return _Synonyms(single=single, phrases=phrases, longest_phrase=longest)


SYNONYMS = _build_synonyms()


def concepts(text: str, extra_stop_words: Iterable[str] = ()) -> list[str]:
    """The concepts of `text`, in order of appearance, without repeats."""
    return list(_concepts(text, frozenset(extra_stop_words)))


@lru_cache(maxsize=4096)
def _concepts(text: str, extra_stop_words: frozenset[str]) -> tuple[str, ...]:
    # The same message is read for several questions in one turn (intents, conditions, tools).
    tokens = words(text)
    stops = STOP_WORDS | extra_stop_words
    found: list[str] = []
    index = 0
    while index < len(tokens):
        phrase_concept, width = _phrase_at(tokens, index)
        if phrase_concept is not None:
            if phrase_concept not in found:
                found.append(phrase_concept)
            index += width
            continue
        token = tokens[index]
        index += 1
        if token in stops or any(char.isdigit() for char in token):
            continue  # Numbers and codes say nothing about the topic.
        stemmed = stem(token)
        concept = SYNONYMS.single.get(stemmed, stemmed)
        if concept not in found:
            found.append(concept)
    return tuple(found)


def _phrase_at(tokens: Sequence[str], index: int) -> tuple[str | None, int]:
    for width in range(min(SYNONYMS.longest_phrase, len(tokens) - index), 1, -1):
        concept = SYNONYMS.phrases.get(tuple(tokens[index : index + width]))
        if concept is not None:
            return concept, width
    return None, 1


@dataclass(frozen=True, slots=True)
class Document:
    name: str
    concepts: frozenset[str]  # Everything the document matches on.
    core: frozenset[str]  # Name and description only: the part coverage is measured against.


class LexicalIndex:
    """Scores messages against a fixed set of short documents."""

    FUZZY_CUTOFF = 85.0
    FUZZY_DISCOUNT = 0.85
    UNKNOWN_WEIGHT = 0.25

    def __init__(self, documents: Sequence[Document]) -> None:
        self.documents = list(documents)
        count = len(self.documents)
        frequency: dict[str, int] = {}
        for doc in self.documents:
            for concept in doc.concepts:
                frequency[concept] = frequency.get(concept, 0) + 1
        # A concept every document shares tells them apart less; one document -> weight 1.
        self._weights = {
            concept: math.log(1 + count / df) / math.log(1 + count) if count > 1 else 1.0
            for concept, df in frequency.items()
        }
        spellings: dict[str, str] = {concept: concept for concept in self._weights}
        for word, concept in SYNONYMS.single.items():
            if concept in self._weights:
                spellings.setdefault(word, concept)
        self._spellings = spellings

    @classmethod
    def from_texts(
        cls,
        entries: Sequence[tuple[str, str, Sequence[str]]],
        extra_stop_words: Iterable[str] = (),
        *,
        names_are_text: bool = True,
    ) -> LexicalIndex:
        """Build from (name, text, examples) triples; by default the name's words count as text."""
        stops = tuple(extra_stop_words)
        documents = []
        for name, text, examples in entries:
            core = concepts(f"{name_words(name)} {text}" if names_are_text else text, stops)
            everything = list(core)
            for example in examples:
                everything.extend(concepts(example, stops))
            documents.append(Document(name=name, concepts=frozenset(everything), core=frozenset(core)))
        return cls(documents)

    def resolve(self, query: Sequence[str]) -> dict[str, tuple[float, float]]:
        """Query concepts with (weight, credit): a misspelt known word maps to the known concept
        and earns only part of its weight. A word no document knows gets (0, 0)."""
        resolved: dict[str, tuple[float, float]] = {}
        for concept in query:
            if concept in self._weights:
                weight = self._weights[concept]
                resolved[concept] = (weight, weight)
                continue
            match = None
            if len(concept) >= 5 and self._spellings:
                match = process.extractOne(
                    concept, list(self._spellings), scorer=fuzz.ratio, score_cutoff=self.FUZZY_CUTOFF
                )
            if match is None:
                resolved.setdefault(concept, (0.0, 0.0))
                continue
            known = self._spellings[match[0]]
            weight = self._weights[known]
            credit = weight * self.FUZZY_DISCOUNT
            if resolved.get(known, (0.0, 0.0))[1] < credit:
                resolved[known] = (weight, credit)
        return resolved

    def score_concepts(self, query: Sequence[str]) -> list[tuple[str, float]]:
        """(document name, score) for every document, in document order."""
        resolved = self.resolve(query)
        unknown = sum(1 for weight, _ in resolved.values() if weight == 0.0)
        noise = self.UNKNOWN_WEIGHT * math.sqrt(unknown)
        results = []
        for doc in self.documents:
            shared = [c for c, (w, _) in resolved.items() if w > 0 and c in doc.concepts]
            if not shared:
                results.append((doc.name, 0.0))
                continue
            credit = sum(resolved[c][1] for c in shared)
            weight = sum(resolved[c][0] for c in shared)
            other = sum(w for c, (w, _) in resolved.items() if w > 0 and c not in doc.concepts)
            precision = credit / (weight + other + noise)
            covered = len([c for c in shared if c in doc.core])
            coverage = covered / len(doc.core) if doc.core else 0.0
            results.append((doc.name, precision * (0.8 + 0.2 * min(1.0, 2 * coverage))))
        return results

    def score(self, text: str) -> list[tuple[str, float]]:
        return self.score_concepts(concepts(text))


_CAMEL_RE = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def name_words(name: str) -> str:
    """`return_item` -> "return item"; `OrderStatus` -> "Order Status"."""
    return _CAMEL_RE.sub(" ", name).replace("_", " ").replace("-", " ")
