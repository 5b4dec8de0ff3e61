"""Recall latency over HTTP at scale, and the engine memory per item.

Run: ``.venv/bin/python bench/recall_speed.py [--items 100000] [--cues 200]
[--words-only] [--own-vectors] [--bulk-index] [--data-dir DIR] [--loaded]
[--engine falkordb|neo4j]`` (on Neo4j, started as bench/recall_quality.py
does, without the engine's memory, bulk indexing or a kept data dir)
(``--data-dir``: the loaded engine is kept there, and a second run with the
same flags measures it again without loading: a million vectors take hours),
or ``.venv/bin/python bench/recall_speed.py --freshness [--engine
falkordb|neo4j]`` (below).

A fresh ``memexd serve`` (FalkorDB, default settings: full-text and vector
indexes on) gets ``--items`` items through ``POST /items``, their text drawn
from a vocabulary of 20,000 words with Zipf's law (s = 1.1), as natural text
has it (the load benches' 23-word corpus makes every cue match every item);
each then gets a vector through ``setItemEmbeddings``, 256 a call (random
unit vectors: the model would take days to embed a million items on two
cores, and the index's work does not depend on where a vector came from;
FalkorDB's vector index takes 5 ms a vector at first and over 12 ms past
300,000, so a million take three hours or more). ``--cues`` recalls of
random words (three words drawn the same way, ``minScore: 0``: random words
and vectors stay under the server's floor) then run one after another,
each mode in turn, and the script prints p50, p99 and mean per mode (the
cue's embedding by the model included), and the engine's memory per item
(``used_memory`` of the engine before the load and after, divided by the
items). ``--words-only`` stores no vectors and turns embedding off: TEXT
recall and the full-text index's memory only. ``--own-vectors`` keeps the
model out of the server (``MEMEXD_EMBEDDING=off``) and sends each cue's
vector with it, as a caller with its own vectors does: with the model on, it
embeds items waiting while the caller's vectors stream in (storing a vector
writes no event, so nothing tells it a bulk write is under way); measured at
100,000 items that cost the load ~4%, and the option keeps the model's share
of the cores out of the figures. The script then times the model embedding
cues in its own process, the part of a recall's time this leaves out.
``--bulk-index`` drops the vector index (on the engine's socket) before the
vectors are stored and builds it once after, waiting until the engine says
it is operational, as an operator would for a bulk load: 60,000 vectors
took 2 ms each stored one by one into the index against 0.5 ms stored plus
1.2 ms built after; recall then searches the same kind of index.

``--freshness``: how soon what was just written is found by meaning. A fresh
server (``MEMEXD_EMBEDDING=e5-small``, text search on; FalkorDB, or with
``--engine neo4j`` a Neo4j 5 started as bench/recall_quality.py does) gets
500 everyday notes in scope ``bench:fresh`` and embeds them all (the script
waits until ``stats.embeddings.waiting`` is 0). Then, 100 times: one new
note through ``createItem``, and from its answer on, ``recall`` of a
paraphrase of it (HYBRID, ``limit: 1``, that scope) again and again until
the note ranks first (given up after 30 s: a miss, printed with what a
recall with ``minScore: 0`` says: first under the server's floor, or not
first). The 100 (note, cue) pairs come from ten templates with distinct slot
values, each cue sharing no word with its note; each pair was chosen so that
the model ranks its note first among the notes written before it, at a
cosine of 0.80 or more (the floor's paraphrase). Nothing waits for the
background embedder between notes: it may have caught up or not when a note
is written. Printed: the time from the write's answer to the recall that
ranked the note first (p50, p99, max), the share the first recall already
ranked first, and the misses, for all notes and split by whether the
embedder had items waiting just before the write. Then the write path beside
it, into other scopes: 20,000 short notes through ``createItems`` in batches
of 500, and 20,000 through one ``POST /items``, each as items/s (writes
embed nothing; the embedder waits while a bulk write goes on). ``--items``,
``--cues`` and the load options are not used.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import random
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import numpy
import orjson
import redis
from _common import (
    CREATE_ITEMS,
    GRAPH_NAME,
    Latencies,
    batches,
    check_graphql,
    graphql,
    item_inputs,
    load_items,
    memexd_server,
    percentile,
    raw_client,
    raw_query,
)

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from memexd.recall.model import DIMENSION, E5Small
from memexd.recall.vectors import MAX_VECTORS
from tests.neo4j_server import Neo4jServer

CYPHER = Path(__file__).resolve().parents[1] / "cypher"

RECALL = """query($cue: String!, $mode: RecallMode!, $vector: [Float!]) {
  recall(input: {cue: $cue, mode: $mode, vector: $vector, limit: 10, minScore: 0}) {
    score item { id } } }"""
VECTORS = "mutation($i: [ItemEmbeddingInput!]!) { setItemEmbeddings(input: $i) }"
VOCABULARY = 20_000


class Zipf:
    """Words w0 … w19999, the n-th drawn with weight 1 / n^1.1."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.words = [f"w{n}" for n in range(VOCABULARY)]
        self.weights = list(itertools.accumulate(1 / (n + 1) ** 1.1 for n in range(VOCABULARY)))

    def text(self, count: int) -> str:
        return " ".join(self.rng.choices(self.words, cum_weights=self.weights, k=count))


def _args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--cues", type=int, default=200)
    parser.add_argument("--words-only", action="store_true",
                        help="no vectors, embedding off: TEXT recall and the full-text "
                        "index's memory only (minutes at a million items, not hours)")  # fmt: skip
    parser.add_argument("--data-dir", type=Path,
                        help="keep the loaded engine here; run again with the same flags "
                        "to measure without loading again (keep the path short)")  # fmt: skip
    parser.add_argument("--bulk-index", action="store_true",
                        help="drop the vector index while the vectors are stored and "
                        "build it once after (a bulk load)")  # fmt: skip
    parser.add_argument("--loaded", action="store_true",
                        help="--data-dir holds the items and vectors of a run stopped "
                        "before its index was built: the server builds it at start; "
                        "measure once it is operational")  # fmt: skip
    parser.add_argument("--own-vectors", action="store_true",
                        help="embedding off in the server; cues carry their vectors "
                        "(the model's cue time is measured apart)")  # fmt: skip
    parser.add_argument("--freshness", action="store_true",
                        help="how soon a note just written is recalled by a paraphrase, "
                        "and the bulk write rates beside it (options above unused)")  # fmt: skip
    parser.add_argument("--engine", choices=["falkordb", "neo4j"], default="falkordb",
                        help="the engine memexd runs on (on Neo4j the engine's memory is "
                        "not measured)")  # fmt: skip
    args = parser.parse_args()
    if args.engine != "falkordb" and (args.bulk_index or args.data_dir or args.loaded):
        parser.error("--bulk-index, --data-dir and --loaded work on the embedded FalkorDB only")
    return args


def units(rng: numpy.random.Generator, count: int) -> list[list[float]]:
    """``count`` random unit vectors (numpy: the client shares the engine's
    two cores, and a million vectors in pure Python took minutes of them)."""
    v = rng.standard_normal((count, DIMENSION))
    return numpy.round(v / numpy.linalg.norm(v, axis=1, keepdims=True), 6).tolist()  # type: ignore[no-any-return]


def used_memory(socket: str) -> int:
    with redis.Redis(unix_socket_path=socket) as engine:
        return int(engine.info("memory")["used_memory"])


def main() -> None:
    args = _args()
    if args.freshness:
        freshness_main(args.engine)
        return
    rng = random.Random(7)
    inputs = item_inputs(args.items, rng)
    zipf = Zipf(rng)
    for row in inputs:
        row["content"] = {"text": zipf.text(rng.randint(8, 30))}
    embedding = "off" if args.words_only or args.own_vectors else "e5-small"
    settings = {"MEMEXD_EMBEDDING": embedding, "MEMEXD_TEXT_SEARCH": "true"}
    unfinished = args.data_dir is not None and args.data_dir.exists()
    if unfinished and not args.loaded and not (args.data_dir / "recall_speed.json").exists():
        sys.exit(f"{args.data_dir} holds no finished load of this script: remove it first")
    with (
        engine(args.engine) as extra,
        memexd_server(GRAPH_NAME, keep=args.data_dir, **settings, **extra) as server,
        httpx.Client(base_url=server.base_url, timeout=600) as client,
    ):
        print(f"recall speed on {args.engine}")
        loaded = None if args.data_dir is None else args.data_dir / "recall_speed.json"
        per_item: float | None = None
        if args.loaded:
            print(f"{args.items:,} items and vectors stored before in {args.data_dir} "
                  "(an interrupted run; memory per item not measured)")  # fmt: skip
        elif loaded is not None and loaded.exists():
            per_item = _reused(loaded, args)
        else:
            per_item = _load_all(server, client, inputs, args)
            if loaded is not None:
                loaded.write_text(orjson.dumps(_run_of(args) | {"per_item": per_item}).decode())
        held = "full-text index" if args.words_only else "full-text and vector indexes"
        if per_item is not None:
            print(f"engine memory: {per_item:,.0f} B per item (items, events, {held})")
        if args.engine == "falkordb":  # Neo4j's indexes take each write as it commits
            started = time.perf_counter()
            asyncio.run(operational(server))  # a restarted engine may be building its indexes
            print(f"indexes operational after {time.perf_counter() - started:.0f} s more")
        cue_vectors = numpy.random.default_rng(11) if args.own_vectors else None
        for mode in ("TEXT",) if args.words_only else ("HYBRID", "VECTOR", "TEXT"):
            measure(client, zipf, mode, args.cues, args.items, cue_vectors)
    if args.own_vectors:
        time_the_model(zipf, args.cues)


def _run_of(args: argparse.Namespace) -> dict[str, Any]:
    return {"items": args.items, "words_only": args.words_only, "bulk_index": args.bulk_index}


def _load_all(server: Any, client: httpx.Client, inputs: list[dict[str, Any]],
              args: argparse.Namespace) -> float | None:  # fmt: skip
    """The items and their vectors; the engine's memory per item they took
    (FalkorDB's: Neo4j's heap and page cache do not grow with what it holds)."""
    if args.engine != "falkordb":
        load(client, inputs)
        if not args.words_only:
            store_vectors(client, inputs)
        return None
    before = used_memory(server.socket)
    load(client, inputs)
    if not args.words_only:
        if args.bulk_index:
            asyncio.run(vector_index(server, "vector_index_drop"))
        store_vectors(client, inputs)
        if args.bulk_index:
            started = time.perf_counter()
            asyncio.run(vector_index(server, "vector_index_create"))
            asyncio.run(operational(server))
            print(f"vector index built in {time.perf_counter() - started:.0f} s")
    return (used_memory(server.socket) - before) / int(args.items)


async def vector_index(server: Any, statement: str) -> None:
    """Run memexd's own statement that drops or creates the vector index."""
    lines = (CYPHER / f"{statement}.cypher").read_text().splitlines()
    text = "\n".join(line for line in lines if not line.startswith("//"))
    async with raw_client(server) as db:
        await raw_query(db.select_graph(GRAPH_NAME), text)


async def operational(server: Any) -> None:
    """Wait until the engine has built every index (it builds in the background)."""
    async with raw_client(server) as db:
        graph = db.select_graph(GRAPH_NAME)
        while True:
            rows = await raw_query(graph, "CALL db.indexes() YIELD status RETURN status")
            if all(row[0] == "OPERATIONAL" for row in rows):
                return
            await asyncio.sleep(5)


def _reused(loaded: Path, args: argparse.Namespace) -> float:
    """A data dir this script loaded before, with the same items: measure only."""
    run = orjson.loads(loaded.read_bytes())
    if {k: run[k] for k in _run_of(args)} != _run_of(args):
        sys.exit(f"{loaded.parent} was loaded with {run}, not {_run_of(args)}")
    print(f"{args.items:,} items (and vectors) loaded before in {loaded.parent}")
    return float(run["per_item"])


def load(client: httpx.Client, inputs: list[dict[str, Any]]) -> None:
    started = time.perf_counter()
    for chunk in batches(inputs, 20_000):
        body = b"".join(orjson.dumps(row) + b"\n" for row in chunk)
        client.post("/items", content=body, headers={"content-type": "application/x-ndjson"})
    print(f"{len(inputs):,} items in {time.perf_counter() - started:.1f} s (POST /items)")


def store_vectors(client: httpx.Client, inputs: list[dict[str, Any]]) -> None:
    """Two calls in flight (the server runs two workers): the calls' parsing
    and checking in the service overlaps the engine's storing."""
    numbers = numpy.random.default_rng(7)
    started, splits, done = time.perf_counter(), 0, 0
    with ThreadPoolExecutor(2) as pool:
        pending: list[Future[int]] = []
        for chunk in batches(inputs, MAX_VECTORS):
            vectors = units(numbers, len(chunk))
            entries = [{"id": r["id"], "vector": v} for r, v in zip(chunk, vectors, strict=True)]
            pending.append(pool.submit(send_vectors, client, entries))
            if len(pending) == 4:
                splits += pending.pop(0).result()
                done += 1
                if done % 400 == 0:
                    print(f"  {done * MAX_VECTORS:,} vectors, "
                          f"{time.perf_counter() - started:.0f} s", flush=True)  # fmt: skip
        splits += sum(f.result() for f in pending)
    spent = time.perf_counter() - started
    print(f"{len(inputs):,} vectors in {spent:.1f} s (setItemEmbeddings; "
          f"{splits} calls over the engine's query limit sent again in halves)")  # fmt: skip


def send_vectors(client: httpx.Client, entries: list[dict[str, Any]]) -> int:
    """One call; a call the engine's query limit stopped (RESOURCE_EXHAUSTED:
    nothing was stored) is sent again in two halves, as a caller would.
    Returns how many calls were split."""
    body = orjson.dumps({"query": VECTORS, "variables": {"i": entries}})
    response = client.post("/graphql", content=body, headers={"content-type": "application/json"})
    codes = {e.get("extensions", {}).get("code") for e in response.json().get("errors") or []}
    if codes != {"RESOURCE_EXHAUSTED"} or len(entries) == 1:
        check_graphql(response)
        return 0
    half = len(entries) // 2
    return 1 + send_vectors(client, entries[:half]) + send_vectors(client, entries[half:])


def measure(
    client: httpx.Client,
    zipf: Zipf,
    mode: str,
    cues: int,
    items: int,
    vectors: numpy.random.Generator | None,
) -> None:
    timings = []
    for _ in range(cues):
        cue = zipf.text(3)
        variables: dict[str, Any] = {"cue": cue, "mode": mode}
        if vectors is not None and mode != "TEXT":
            variables["vector"] = units(vectors, 1)[0]
        t = time.perf_counter()
        response = client.post("/graphql", json={"query": RECALL, "variables": variables})
        timings.append((time.perf_counter() - t) * 1000)
        if not check_graphql(response)["recall"]:
            raise RuntimeError(f"no hit for {cue!r} in {mode}")
    lat = Latencies(mode, timings)
    print(f"recall {mode:<6} @ {items:,}: p50 {lat.p50:6.1f} ms  "
          f"p99 {lat.pct(99):6.1f} ms  mean {lat.mean:6.1f} ms")  # fmt: skip


def time_the_model(zipf: Zipf, cues: int) -> None:
    """The model embedding ``cues`` three-word cues, one after another, in
    this process (as the server's cue thread does)."""
    model = E5Small()
    try:
        timings = asyncio.run(_cue_times(model, [zipf.text(3) for _ in range(cues)]))
    finally:
        model.close()
    lat = Latencies("cue", timings)
    print(f"the model embeds a cue: p50 {lat.p50:6.1f} ms  p99 {lat.pct(99):6.1f} ms  "
          f"(add to HYBRID and VECTOR above for a server embedding cues)")  # fmt: skip


async def _cue_times(model: E5Small, cues: list[str]) -> list[float]:
    """Milliseconds per cue, in one event loop (the first call, which loads
    the model, is not timed)."""
    await model.query("warm up")
    timings = []
    for cue in cues:
        t = time.perf_counter()
        await model.query(cue)
        timings.append((time.perf_counter() - t) * 1000)
    return timings


# ---------------------------------------------------------------- freshness

FRESH_SCOPE = "bench:fresh"
BULK = 20_000
BULK_BATCH = 500
BACKGROUND = 500
GIVE_UP_S = 30.0
CREATE_ONE = "mutation($i: MemoryItemInput!) { createItem(input: $i) { item { id } } }"
FIRST_HIT = """query($cue: String!) {
  recall(input: {cue: $cue, limit: 1, filter: {scopePrefix: "bench:fresh"}}) { item { id } } }"""
#: after a miss: the best hit with no floor (is the note first, under the floor?)
UNFLOORED = """query($cue: String!) {
  recall(input: {cue: $cue, limit: 1, minScore: 0, filter: {scopePrefix: "bench:fresh"}}) {
    score item { id } } }"""
WAITING = "{ stats { embeddings { waiting } } }"

Slots = tuple[tuple[str, str], ...]


def only(*words: str) -> Slots:
    """Slot values said in the note only (the cue leaves them out)."""
    return tuple((word, "") for word in words)


#: (note, cue, a, b): ``{a}`` and ``{b}`` are (note's words, cue's words),
#: the i-th of ``a`` with the i-th of ``b``. The cue shares no word with its
#: note (nor, but for small words, with any other note), so a note is found
#: first by meaning; each was checked against the background notes and the
#: notes written before it with the model (cosine alone: HYBRID adds words).
PAIR_TEMPLATES: tuple[tuple[str, str, Slots, Slots], ...] = (
    ("The {a} database ran out of disk space on {b}", "why has the {a} DB no storage remaining?",
     (("billing", "invoices"), ("recruiting", "job applicants"), ("chat", "messaging app"),
      ("student enrolment", "pupil admissions"), ("e-commerce", "online shop"),
      ("payroll", "salary"), ("analytics", "metrics reporting"),
      ("hospital records", "patient files"), ("shipping", "freight"), ("video", "film clips")),
     only("the bank holiday", "New Year's Eve", "launch day", "Sunday evening", "Easter Monday",
          "Tuesday night", "Wednesday morning", "the 2nd", "Thursday", "payday")),
    ("My {a} is allergic to {b}", "is my {a} intolerant to {b}?",
     (("nephew", "brother's boy"), ("boss", "manager"), ("roommate", "flatmate"),
      ("grandmother", "dad's mom"), ("best friend", "closest pal"), ("husband", "spouse"),
      ("sister", "female sibling"), ("son", "little boy"), ("daughter", "girl"),
      ("neighbour", "flat opposite's tenant")),
     (("mustard", "yellow condiment"), ("eggs", "anything hens lay"), ("soy", "tofu"),
      ("sesame", "tahini"), ("tree nuts", "cashews and walnuts"), ("shellfish", "prawns"),
      ("peanuts", "groundnuts"), ("strawberries", "red berries"), ("gluten", "wheat flour"),
      ("cow's milk", "dairy"))),
    ("{a} appointment moved to {b}", "when was my {a} booking pushed to?",
     (("Dentist", "tooth doctor"), ("Physiotherapy", "physical therapist"),
      ("Blood test", "haematology lab"), ("Vaccination", "jab at the clinic"),
      ("Dermatologist", "skin doctor"), ("Massage", "masseuse"),
      ("Piano tuner", "keyboard instrument tuning"), ("Plumber", "plumbing repair man"),
      ("Driving test", "road exam for my licence"), ("Pediatrician", "children's doctor")),
     only("Thursday at 3pm", "the 14th at noon", "the 21st", "next month", "Wednesday evening",
          "after the holidays", "the 3rd at 8am", "Tuesday at 4:15", "late September",
          "mid-October")),
    ("Left the {a} {b}", "where did I forget the {a}?",
     (("suitcase", "luggage"), ("laptop charger", "notebook computer's adapter cable"),
      ("gym bag", "workout kit"), ("winter gloves", "hand warmers for the cold"),
      ("tax documents", "financial paperwork"), ("headphones", "earbuds"),
      ("bike lock", "bicycle chain"), ("swimsuit", "bathing costume"),
      ("sunglasses", "sun shades"), ("spare house keys", "extra key to the flat")),
     only("on the bus", "at Maria's place", "under the sofa cushions", "at the cinema",
          "in the kitchen cupboard above the sink", "in the attic", "at the office reception",
          "at the dry cleaner", "in the garden shed", "in the blue drawer by the front door")),
    ("{a} costs {b} a month now", "what's the price of {a} these days?",
     (("Electricity", "the mains supply bill"), ("Car insurance", "vehicle cover"),
      ("The gym membership", "the fitness centre"), ("The newspaper", "the daily press delivered"),
      ("Music lessons", "weekly tutoring for an instrument"),
      ("The phone contract", "mobile service"), ("Childcare", "daycare for the little ones"),
      ("Health insurance", "medical cover"), ("The streaming subscription", "online TV and films"),
      ("Rent", "the apartment lease")),
     only("90 dollars", "80 euros", "30 dollars", "240 pounds", "150 euros", "25 pounds",
          "600 euros", "40 dollars", "12 pounds", "1,200 dollars")),
    ("The {a} is broken, it stopped working {b}", "the {a} has a fault and needs fixing",
     (("washing machine", "clothes-cleaning appliance"), ("freezer", "ice-cold storage cabinet"),
      ("coffee machine", "espresso maker"), ("ceiling light", "overhead lamp"),
      ("air conditioner", "aircon"), ("fridge", "refrigerator"), ("printer", "inkjet"),
      ("smoke alarm", "fire detector"), ("television", "TV set"),
      ("dishwasher", "dish-cleaning appliance")),
     only("last night", "after the storm", "on Friday", "on Sunday", "over the weekend",
          "this morning", "on Tuesday", "before the guests came", "an hour ago", "yesterday")),
    ("{b} recommended a novel about {a}", "which tale of {a} was suggested to me?",
     (("a vampire", "a bloodsucking creature of the dark"),
      ("an Antarctic expedition", "explorers at the South Pole"),
      ("climbing Everest", "scaling the highest summit on Earth"),
      ("colonists on Mars", "settlers of the red planet"),
      ("time travel", "journeys to the past and future"),
      ("a haunted house", "a ghost-filled mansion"),
      ("a Roman emperor", "a ruler of the ancient empire"),
      ("a detective in Tokyo", "a Japanese crime investigator"),
      ("a jazz saxophonist", "a bebop sax player"),
      ("a sourdough bakery", "loaves rising in a baker's shop")),
     only("The teacher", "The librarian", "The bookshop owner", "My aunt", "Our reading club host",
          "A fellow passenger", "A podcast host", "My cousin", "My yoga teacher",
          "An old school friend")),
    ("Flight to {a} leaves at {b} from terminal 2", "when does my plane to {a} depart?",
     (("Oslo", "Norway"), ("Lisbon", "Portugal's capital"), ("Toronto", "Canada"),
      ("Cairo", "Egypt"), ("Sydney", "Australia"), ("Hanoi", "Vietnam"), ("Tokyo", "Japan"),
      ("Reykjavik", "Iceland"), ("Buenos Aires", "Argentina"), ("Nairobi", "Kenya")),
     only("19:35", "6:40", "11:50", "15:45", "17:10", "22:00", "7:15", "10:30", "13:20", "9:05")),
    ("The kids' {a} practice is cancelled because of {b}",
     "why is the youngsters' {a} session off?",
     (("karate", "martial arts dojo"), ("drama", "theatre acting"), ("basketball", "hoops"),
      ("ballet", "dance"), ("football", "soccer"), ("tennis", "Wimbledon sport"),
      ("violin", "fiddle"), ("swimming", "pool"), ("archery", "bow and arrow"),
      ("choir", "chorus singing")),
     only("a burst pipe at the hall", "a power cut", "snow", "the school concert", "the storm",
          "an inspection", "the holiday", "a coach's illness", "a staff shortage",
          "a broken heater")),
    ("Signed up for a cooking class on {a} for {b}", "which {a} cookery workshop am I attending?",
     (("moussaka", "Greek aubergine casserole"), ("pad thai", "Bangkok street noodle"),
      ("dim sum", "Cantonese dumplings"), ("biryani", "Indian spiced pilau"),
      ("schnitzel", "Austrian breaded veal"), ("tiramisu", "Italian espresso dessert"),
      ("sushi", "Japanese raw fish"), ("borscht", "Ukrainian beetroot broth"),
      ("kimchi", "Korean fermented cabbage"), ("croissants", "French pastry")),
     only("the weekend", "the 28th", "the holidays", "Sunday brunch time", "the 5th", "Tuesday",
          "next Saturday", "late June", "Monday night", "Thursday evening")),
)  # fmt: skip

#: everyday notes in the background, unrelated to the pairs
BACKGROUND_TEMPLATES: tuple[tuple[str, tuple[tuple[str, ...], ...]], ...] = (
    ("Buy {} and {} on the way home",
     (("bread", "oat milk", "apples", "coffee beans", "rice", "onions", "yoghurt", "pasta"),
      ("olive oil", "bananas", "cheddar", "spinach", "lentils", "honey", "butter", "tea"))),
    ("Called {} about the {}",
     (("Anna", "Ben", "Chloe", "David", "Elif", "Farid", "Greta", "Hugo", "Ines", "Jonas"),
      ("weekend plans", "birthday party", "moving boxes", "camping trip", "wedding photos",
       "school reunion", "garden fence", "group holiday", "concert tickets", "bake sale"))),
    ("Ran {} km along the {} in {} minutes",
     (("5", "7", "8", "10", "12", "15"), ("river", "canal", "beach", "park loop", "old railway"),
      ("28", "35", "41", "52", "60", "75"))),
    ("Weather tomorrow: {} with highs of {} degrees",
     (("sunshine", "light rain", "fog in the morning", "strong wind", "thunderstorms",
       "clouds"), ("4", "9", "13", "17", "21", "26", "31"))),
    ("Finished lesson {} of the {} course",
     (("2", "3", "4", "5", "6", "7", "8", "9"),
      ("Spanish", "pottery", "photography", "first aid", "guitar", "watercolour", "coding"))),
    ("Recipe idea: {} with {}",
     (("risotto", "curry", "omelette", "pancakes", "stir fry", "soup", "tacos", "salad"),
      ("mushrooms", "chickpeas", "pumpkin", "smoked salmon", "feta", "ginger", "leeks"))),
    ("{}'s birthday is on {} {}",
     (("Anna", "Ben", "Chloe", "David", "Elif", "Farid", "Greta", "Hugo", "Ines", "Jonas"),
      ("January", "April", "July", "October", "December"), ("3", "11", "19", "24", "30"))),
    ("Team meeting: we agreed to {} by {}",
     (("ship the new logo", "hire a designer", "review the budget", "clean up the wiki",
       "plan the offsite", "update the handbook"),
      ("Friday", "the end of the quarter", "next sprint", "mid-May", "the summer"))),
)  # fmt: skip


@dataclass(frozen=True)
class FreshNote:
    """One new note: time from its write's answer to the recall that ranked
    it first (None: missed), and what the background embedder had waiting."""

    seconds: float | None
    first_recall: bool
    behind: bool


def pairs() -> list[tuple[str, str]]:
    """100 (note, cue) pairs, the templates taking turns."""
    made = []
    for i in range(max(len(t[2]) for t in PAIR_TEMPLATES)):
        for note, cue, a, b in PAIR_TEMPLATES:
            (na, ca), (nb, cb) = a[i], b[i]
            made.append((note.format(a=na, b=nb), cue.format(a=ca, b=cb)))
    return made


def everyday(rng: random.Random) -> str:
    text, slots = rng.choice(BACKGROUND_TEMPLATES)
    return text.format(*(rng.choice(s) for s in slots))


def background_notes(count: int, rng: random.Random) -> list[str]:
    """``count`` distinct everyday notes."""
    notes: dict[str, None] = {}
    while len(notes) < count:
        notes[everyday(rng)] = None
    return list(notes)


def chat_notes(count: int, rng: random.Random) -> list[str]:
    """``count`` distinct notes of two everyday sentences each (about as long
    as a chat turn)."""
    notes: dict[str, None] = {}
    while len(notes) < count:
        notes[f"{everyday(rng)} {everyday(rng)}"] = None
    return list(notes)


def note(text: str, scope: str = FRESH_SCOPE) -> dict[str, Any]:
    return {"scope": scope, "kind": "note", "content": {"text": text}, "author": "user:bench",
            "sourceKind": "observed", "authority": 0.5}  # fmt: skip


@contextmanager
def engine(name: str) -> Iterator[dict[str, str]]:
    """memexd's settings for the engine: FalkorDB embedded (none), or a
    Neo4j started here (as bench/recall_quality.py does) and stopped after."""
    if name == "falkordb":
        yield {}
        return
    data = Path(tempfile.mkdtemp(prefix="mxb-neo4j-"))
    neo4j = Neo4jServer(data)
    neo4j.start()
    try:
        yield neo4j.env()
    finally:
        neo4j.stop()
        shutil.rmtree(data, ignore_errors=True)


def freshness_main(engine_name: str) -> None:
    settings = {"MEMEXD_EMBEDDING": "e5-small", "MEMEXD_TEXT_SEARCH": "true"}
    with (
        engine(engine_name) as extra,
        memexd_server(GRAPH_NAME, **settings, **extra) as server,
        httpx.Client(base_url=server.base_url, timeout=600) as client,
    ):
        print(f"freshness on {engine_name}, e5-small, text search on")
        rng = random.Random(7)
        for chunk in batches(background_notes(BACKGROUND, rng), 100):
            graphql(client, CREATE_ITEMS, {"inputs": [note(text) for text in chunk]})
        wait_embedded(client, BACKGROUND)
        results = [fresh_one(client, text, cue) for text, cue in pairs()]
        report_fresh(results)
        bulk_rates(client, rng)


def waiting(client: httpx.Client) -> int:
    return int(graphql(client, WAITING, {})["stats"]["embeddings"]["waiting"])


def wait_embedded(client: httpx.Client, count: int, timeout: float = 900) -> None:
    started = time.perf_counter()
    while waiting(client):
        if time.perf_counter() - started > timeout:
            raise RuntimeError(f"items still waiting for their vectors after {timeout:.0f} s")
        time.sleep(0.2)
    print(f"{count} background notes in {FRESH_SCOPE}, all embedded "
          f"{time.perf_counter() - started:.1f} s after their write")  # fmt: skip


def fresh_one(client: httpx.Client, text: str, cue: str) -> FreshNote:
    """Write one note, then recall its cue until the note ranks first."""
    behind = waiting(client) > 0
    item = graphql(client, CREATE_ONE, {"i": note(text)})["createItem"]["item"]["id"]
    started = time.perf_counter()
    recalls = 0
    while (spent := time.perf_counter() - started) < GIVE_UP_S:
        hits = graphql(client, FIRST_HIT, {"cue": cue})["recall"]
        recalls += 1
        if hits and hits[0]["item"]["id"] == item:
            return FreshNote(time.perf_counter() - started, recalls == 1, behind)
    print(f"  missed after {spent:.0f} s ({recalls} recalls): {text!r} / {cue!r}; "
          + why_missed(client, cue, item))  # fmt: skip
    return FreshNote(None, False, behind)


def why_missed(client: httpx.Client, cue: str, item: str) -> str:
    hits = graphql(client, UNFLOORED, {"cue": cue})["recall"]
    if hits and hits[0]["item"]["id"] == item:
        return f"first with minScore 0 (score {hits[0]['score']:.3f}): under the server's floor"
    return "not first even with minScore 0"


def report_fresh(results: list[FreshNote]) -> None:
    print(f"freshness: {len(results)} new notes, each recalled by a paraphrase "
          f"until ranked first (HYBRID, limit 1, scope {FRESH_SCOPE})")  # fmt: skip
    idle = [r for r in results if not r.behind]
    behind = [r for r in results if r.behind]
    for label, part in (("all", results), ("embedder idle", idle), ("embedder behind", behind)):
        if part:
            print("  " + fresh_line(label, part))
    found = [(r.seconds, n) for n, r in enumerate(results, 1) if r.seconds is not None]
    if found:
        seconds, number = max(found)
        print(f"  slowest: note {number} of {len(results)} ({seconds * 1000:.0f} ms; "
              "note 1 is the first write and recall on a cold path)")  # fmt: skip


def fresh_line(label: str, part: list[FreshNote]) -> str:
    found = sorted(r.seconds * 1000 for r in part if r.seconds is not None)
    first = sum(r.first_recall for r in part)
    head = f"{label:<16} {len(part):3}: first recall ranked it first {first}/{len(part)}"
    misses = len(part) - len(found)
    if not found:
        return f"{head}, misses {misses}"
    return (f"{head} ({first / len(part):.0%}); write to hit: p50 {percentile(found, 50):.0f} ms"
            f"  p99 {percentile(found, 99):.0f} ms  max {found[-1]:.0f} ms; "
            f"misses {misses}")  # fmt: skip


def bulk_rates(client: httpx.Client, rng: random.Random) -> None:
    """The write path beside it: createItems in batches, then POST /items."""
    texts = [everyday(rng) for _ in range(BULK)]
    rows = [note(t, "bench:bulk/graphql") for t in texts]
    started = time.perf_counter()
    load_items(client, rows, BULK_BATCH)
    spent = time.perf_counter() - started
    print(f"bulk ingest: createItems {BULK:,} short notes in batches of {BULK_BATCH}: "
          f"{BULK / spent:,.0f} items/s ({spent:.1f} s)")  # fmt: skip
    rows = [note(t, "bench:bulk/ndjson") for t in texts]
    spent = post_rows(client, rows)
    print(f"bulk ingest: POST /items {BULK:,} short notes in one request: "
          f"{BULK / spent:,.0f} items/s ({spent:.1f} s)")  # fmt: skip


def post_rows(client: httpx.Client, rows: list[dict[str, Any]]) -> float:
    """``POST /items`` (NDJSON); the seconds it took; fails unless all were created."""
    body = b"".join(orjson.dumps(row) + b"\n" for row in rows)
    started = time.perf_counter()
    answer = client.post("/items", content=body, headers={"content-type": "application/x-ndjson"})
    spent = time.perf_counter() - started
    answer.raise_for_status()
    done = orjson.loads(answer.content.splitlines()[-1]).get("done", {})
    if done.get("created") != len(rows):
        raise RuntimeError(f"POST /items: {answer.content.splitlines()[-1]!r}")
    return spent


if __name__ == "__main__":
    main()
