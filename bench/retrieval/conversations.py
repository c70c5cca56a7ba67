"""Generate a multi-session, multi-user retrieval dataset shaped like memproxy's job.

    python bench/retrieval/conversations.py     # writes conversations/{memories,questions}.jsonl

Twelve users with distinct lives talk to an assistant over ~14 sessions (Oct 2025 - Sep 2026). Every user
turn becomes one memory: a short present-tense fact as the user said it, with the session id and an ISO ``ts``.
Besides the facts questions ask about, each user has distractors: three projects with the same kinds of facts
(stack, datastore, CI, deploy target, decisions, incidents), an old deploy target later replaced, and chatty
turns mentioning the same projects and tools.

Questions (``type``): ``single`` needs one turn; ``multi`` needs two turns from different sessions (one
names the thing the other describes); ``temporal`` needs a date (a session's month, or a date the user gave).
Question templates use their own vocabulary (synonym sets), not the memory's. The templates were written
without reading memproxy's ranker. ``split`` is dev or test, 50/50 within each type. Fixed seed: re-running
gives the same files.

Every question is asked in a new session, and ``context`` holds that session's turns before it (user and
assistant, oldest first): none, or a few exchanges of small talk and work chatter about the user's projects
(noise for retrieval), or a lead-in on the question's subject the way people start ("I'm setting up a new
laptop." before asking which editor they use). ``followup`` questions (a fourth type) come second in an
exchange: the user asked about one thing, the assistant answered, and the follow-up's words only make sense with
that ("And what does it use for continuous integration?", "What's the stack of the second one?"); their
evidence is the one memory the follow-up asks about. Contexts and follow-ups are drawn from their own random
streams, so the memories and the other questions are the same as before they existed.
"""

from __future__ import annotations

import calendar
import json
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "conversations"
SEED = 17

ROLES = [
    "backend engineer",
    "data scientist",
    "site reliability engineer",
    "frontend developer",
    "machine learning engineer",
    "mobile developer",
    "security engineer",
    "platform engineer",
    "QA lead",
    "engineering manager",
    "database administrator",
    "embedded software engineer",
]
COMPANIES = [
    "Quillon",
    "Brightwave",
    "Fernhollow",
    "Corvid Labs",
    "Tessera Health",
    "Northpine",
    "Halcyon Freight",
    "Mosaic Bank",
    "Lumen Farms",
    "Orbitly",
    "Kestrel Games",
    "Sablewood",
]
CITIES = [
    "Lisbon",
    "Toronto",
    "Nairobi",
    "Osaka",
    "Denver",
    "Krakow",
    "Melbourne",
    "Bogota",
    "Dublin",
    "Pune",
    "Austin",
    "Tallinn",
]
# species, breeds, words a question may use instead of the species
PETS = [
    ("dog", ["beagle", "corgi", "greyhound", "labrador", "border collie"], ["pup", "hound", "pooch"]),
    ("cat", ["siamese", "maine coon", "tabby", "sphynx"], ["kitty", "feline"]),
    ("rabbit", ["holland lop", "rex"], ["bunny"]),
    ("parrot", ["african grey", "cockatiel"], ["bird"]),
]
PET_NAMES = [
    "Biscuit",
    "Mochi",
    "Pepper",
    "Ziggy",
    "Olive",
    "Juno",
    "Waffles",
    "Tofu",
    "Rocket",
    "Nala",
    "Miso",
    "Pickles",
    "Luna",
    "Bean",
]
CLINICS = [
    "Greenleaf Animal Hospital",
    "Paws and Claws Clinic",
    "Riverside Vet",
    "Harbor Pet Care",
    "Oakridge Veterinary",
    "Sunnyside Animal Clinic",
]
ALLERGENS = [
    ("peanuts", ["nuts"]),
    ("shellfish", ["seafood"]),
    ("dairy", ["milk products"]),
    ("gluten", ["wheat"]),
    ("sesame", ["seeds"]),
    ("eggs", ["egg"]),
]
DIETS = ["vegan", "vegetarian", "pescatarian", "on a low-FODMAP diet", "keto"]
PARTNERS = ["Ana", "Tomas", "Priya", "Jonah", "Mei", "Luca", "Sade", "Noor", "Elias", "Freya", "Ravi", "Ingrid"]
PARTNER_JOBS = ["nurse", "architect", "high school teacher", "pilot", "lawyer", "chef", "journalist", "pharmacist"]
EDITORS = ["Neovim", "VS Code", "Emacs", "PyCharm", "Helix", "Zed", "IntelliJ IDEA"]
HOBBIES = [
    "bouldering",
    "chess",
    "sourdough baking",
    "trail running",
    "the cello",
    "birdwatching",
    "woodworking",
    "salsa dancing",
    "sailing",
    "pottery",
]
LEARNING = ["Rust", "Elixir", "Haskell", "Zig", "OCaml", "Kotlin", "Clojure"]
CONFS = [
    ("PyCon US", "Pittsburgh"),
    ("KubeCon EU", "Paris"),
    ("Strange Loop", "St. Louis"),
    ("RustConf", "Montreal"),
    ("JSConf", "Budapest"),
    ("GopherCon", "Chicago"),
    ("NeurIPS", "Vancouver"),
    ("DevOpsDays", "Amsterdam"),
    ("QCon", "London"),
]
RELATIVES = ["sister", "brother", "cousin", "best friend", "college roommate"]
PROJECTS = [
    "Atlas",
    "Beacon",
    "Cinder",
    "Drift",
    "Ember",
    "Falcon",
    "Garnet",
    "Harbor",
    "Iris",
    "Juniper",
    "Kite",
    "Lattice",
    "Meridian",
    "Nimbus",
    "Onyx",
    "Pylon",
    "Quarry",
    "Relay",
    "Sparrow",
    "Tundra",
    "Umber",
    "Vesper",
    "Willow",
    "Yarrow",
    "Zephyr",
    "Anvil",
    "Bramble",
    "Comet",
    "Dune",
    "Fathom",
    "Glacier",
    "Heron",
    "Indigo",
    "Jasper",
    "Kelp",
    "Lumen",
]
STACKS = [
    ("Python", "Django"),
    ("Python", "FastAPI"),
    ("Go", "Gin"),
    ("TypeScript", "Next.js"),
    ("Ruby", "Rails"),
    ("Java", "Spring Boot"),
    ("Kotlin", "Ktor"),
    ("Elixir", "Phoenix"),
    ("C#", "ASP.NET Core"),
    ("TypeScript", "NestJS"),
    ("Rust", "Axum"),
    ("PHP", "Laravel"),
]
DATABASES = ["Postgres", "MySQL", "MongoDB", "DynamoDB", "SQLite", "CockroachDB", "Redis", "Cassandra"]
CIS = ["GitHub Actions", "GitLab CI", "CircleCI", "Jenkins", "Buildkite", "Drone"]
TARGETS = [
    "Heroku",
    "Fly.io",
    "AWS ECS",
    "Google Cloud Run",
    "a Kubernetes cluster on GKE",
    "Render",
    "Vercel",
    "a pair of Hetzner VMs",
    "Azure App Service",
    "DigitalOcean droplets",
]
DECISIONS = [
    "switch the public API from REST to gRPC",
    "drop support for Python 3.8",
    "put new features behind flags",
    "split the monolith into two services",
    "move all secrets into Vault",
    "add Playwright end-to-end tests",
    "freeze new features until the security audit",
    "rewrite the CSV importer",
    "use UUIDv7 primary keys",
    "turn on strict type checking",
    "replace cron jobs with a queue",
    "ship releases every two weeks",
    "keep the mobile app read-only for now",
    "adopt trunk-based development",
    "pay for Sentry",
]
CAUSES = [
    "an expired TLS certificate",
    "a full disk on the primary",
    "a bad migration that locked a table",
    "a memory leak in the worker",
    "DNS misconfiguration",
    "a runaway retry loop",
    "a leaked connection pool",
    "clock skew between nodes",
    "a typo in the load balancer config",
    "an upstream rate limit",
]
STANDUPS = ["9:00", "9:30", "10:00", "10:15", "11:00"]
FILLERS = [
    "I'm reviewing a pull request for {p} this afternoon.",
    "The tests for {p} are flaky again today.",
    "I'm pairing with a new teammate on {p} this week.",
    "I need to write the design doc for {p}.",
    "I'm tired, it has been a long week.",
    "I'm renaming some modules in {p}.",
    "I have a one-on-one with my manager tomorrow.",
    "The coffee machine at the office is broken again.",
    "I'm bumping dependencies in {p}.",
    "I'm adding logging to {p} to chase a bug.",
    "I want to clean up the README of {p}.",
    "I'm on call this week.",
    "The build of {p} is slow today.",
    "I'm trying a new lunch spot near work.",
    "{p} needs a better error page.",
    "I'm writing unit tests for the parser in {p}.",
    "I'm preparing a demo of {p} for Friday.",
    "I'm thinking about moving {p} to {t} someday.",
    "I'm reading a book about distributed systems.",
    "My laptop battery is dying fast.",
    "I'm refactoring the auth module of {p}.",
    "I'm profiling slow queries in {p}.",
    "I took the afternoon off yesterday.",
    "I'm updating the onboarding checklist.",
    "My {s} kept me up last night.",
    "I'm cooking dinner for {partner} tonight.",
    "I'm planning a weekend trip.",
    "I'm migrating {p} config to environment variables.",
    "{p} has a memory spike every night.",
    "I'm hiring for a junior role on my team.",
    "I'm archiving old branches in {p}.",
]


def month_name(ts: datetime) -> str:
    return calendar.month_name[ts.month]


def day_words(d: datetime) -> str:
    suffix = "th" if 10 <= d.day % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(d.day % 10, "th")
    return f"the {d.day}{suffix} of {month_name(d)}"


class User:
    def __init__(self, index: int, rng: random.Random, pools: dict[str, list]) -> None:
        self.rng = rng
        self.name = f"u{index + 1:02d}"
        start = datetime(2025, 10, 1, tzinfo=UTC)
        days = sorted(rng.sample(range(0, 360), 14))
        self.sessions = [start + timedelta(days=d, hours=rng.randint(8, 20), minutes=rng.randint(0, 59)) for d in days]
        self.turns: list[list[dict]] = [[] for _ in self.sessions]  # per session: {text, tags, category, key}
        self.questions: list[dict] = []
        self.by_key: dict[str, tuple[int, dict]] = {}
        for name, pool in pools.items():
            setattr(self, name, pool[index])

    def say(
        self,
        key: str,
        text: str,
        tags: list[str],
        category: str = "fact",
        session: int | None = None,
        avoid: int | None = None,
    ) -> int:
        if session is None:
            choices = [i for i in range(len(self.sessions)) if i != avoid]
            session = self.rng.choice(choices)
        turn = {"text": text, "tags": tags, "category": category}
        self.turns[session].append(turn)
        self.by_key[key] = (session, turn)
        return session

    def ask(self, qtype: str, templates: list[str], keys: list[str], **fill: str) -> None:
        self.questions.append({"type": qtype, "question": self.rng.choice(templates).format(**fill), "keys": keys})


def build_user(u: User) -> None:
    r = u.rng
    species, breeds, species_words = u.pet
    breed = r.choice(breeds)
    allergen, allergen_words = u.allergen
    conf, conf_city = u.conf

    u.say("job", r.choice([f"I work as a {u.role} at {u.company}.", f"I'm a {u.role} at {u.company}."]), ["work"])
    u.ask(
        "single",
        [
            "Who is my employer these days?",
            "Which firm pays my salary?",
            "Remind me which organisation I'm with and in what position.",
        ],
        ["job"],
    )
    u.say("city", r.choice([f"I live in {u.city}.", f"I'm based in {u.city}."]), ["personal"])
    u.ask(
        "single",
        ["What town do I reside in?", "Where is home for me right now?", "Which part of the world am I located in?"],
        ["city"],
    )
    pet_s = u.say("pet", f"I have a {breed} {species} called {u.pet_name}.", ["pets"])
    u.ask(
        "single",
        [
            f"What kind of animal is {u.pet_name}?",
            f"What kind of animal is {u.pet_name}?",
            f"Remind me what sort of {r.choice(species_words)} I own.",
        ],
        ["pet"],
    )
    u.say("vet", f"{u.pet_name} goes to {u.clinic} for checkups.", ["pets"], avoid=pet_s)
    u.ask(
        "multi",
        [
            f"Which clinic looks after my {r.choice(species_words)}'s health?",
            f"Where should I book an appointment if my {r.choice(species_words)} gets sick?",
        ],
        ["pet", "vet"],
    )
    allergy_s = u.say(
        "allergy",
        r.choice([f"I'm allergic to {allergen}.", f"I can't eat {allergen}, I'm allergic."]),
        ["food", "health"],
    )
    u.ask(
        "single",
        [
            "Is there an ingredient I have to stay away from?",
            "Which foods give me a reaction?",
            "Anything I must avoid at a restaurant for medical reasons?",
        ],
        ["allergy"],
    )
    u.say("partner", f"My partner {u.partner} is a {u.partner_job}.", ["family"])
    u.ask("single", [f"What does {u.partner} do for a living?", f"What is {u.partner}'s occupation?"], ["partner"])
    u.say("diet", f"{u.partner} is {u.diet}.", ["family", "food"], avoid=allergy_s)
    if u.by_key["diet"][0] != allergy_s:
        u.ask(
            "multi",
            [
                f"I'm cooking for {u.partner} and me; what should the meal leave out?",
                f"Planning a dinner for the two of us with {u.partner}: any restrictions to respect?",
            ],
            ["allergy", "diet"],
        )
    u.say("editor", r.choice([f"I write code in {u.editor}.", f"My editor is {u.editor}."]), ["tools"], "preference")
    u.ask("single", ["Which IDE do I prefer?", "What's my go-to tool for typing programs?"], ["editor"])
    u.say("hobby", f"I spend my weekends on {u.hobby}.", ["personal"])
    u.ask("single", ["What do I do for fun on Saturdays?", "Any pastime I enjoy when I'm off?"], ["hobby"])
    u.say("learning", f"I'm learning {u.learning} in the evenings.", ["learning"])
    u.ask(
        "single",
        [
            "Which programming language am I currently studying?",
            "What new language have I been picking up after hours?",
        ],
        ["learning"],
    )
    u.say("standup", f"Our team standup is at {u.standup} every weekday.", ["work", "schedule"])
    u.ask(
        "single",
        ["When is the daily sync meeting?", "What hour is the morning check-in with my colleagues?"],
        ["standup"],
    )
    u.say(
        "verbosity",
        r.choice(["I like answers short and to the point.", "Give me detailed answers with reasoning."]),
        ["style"],
        "preference",
    )
    u.ask(
        "single", ["How long should your replies to me be?", "Do I want brief or thorough explanations?"], ["verbosity"]
    )

    # a conference trip, said with a date; the city is said in another session
    conf_s = r.randrange(2, 12)
    trip = u.sessions[conf_s] + timedelta(days=r.randint(20, 60))
    u.say("conf", f"I'm flying to {conf_city} for {conf} on {month_name(trip)} {trip.day}.", ["travel"], session=conf_s)
    u.ask("single", [f"Which event am I travelling to in {conf_city}?", "Which conference am I attending?"], ["conf"])
    if u.by_key["city"][0] != conf_s:
        u.ask(
            "multi",
            [
                f"For {conf}, between which two cities will I be going?",
                f"How far is my trip to {conf}: from where to where?",
            ],
            ["city", "conf"],
        )
    u.ask(
        "temporal",
        [f"Where am I headed on {day_words(trip)}?", f"What's on my calendar for {day_words(trip)}?"],
        ["conf"],
    )
    # two family events with dates
    for n, (what, words) in enumerate([("wedding", ["ceremony", "marriage"]), ("birthday party", ["celebration"])]):
        rel = u.relatives[n]
        s = r.randrange(0, 12)
        day = u.sessions[s] + timedelta(days=r.randint(10, 50))
        u.say(f"event{n}", f"My {rel}'s {what} is on {month_name(day)} {day.day}.", ["family", "events"], session=s)
        u.ask(
            "temporal",
            [f"Do I have anything planned for {day_words(day)}?", f"What's happening on {day_words(day)}?"],
            [f"event{n}"],
        )
        u.ask("single", [f"When is my {rel}'s {r.choice(words)}?"], [f"event{n}"])

    for n, project in enumerate(u.projects):
        lang, framework = u.stacks[n]
        db, ci = u.dbs[n], u.cis[n]
        old, new = u.targets[2 * n], u.targets[2 * n + 1]
        stack_s = u.say(
            f"stack{n}",
            r.choice(
                [f"{project} is written in {lang} with {framework}.", f"We built {project} in {lang} on {framework}."]
            ),
            ["code"],
        )
        u.ask(
            "single",
            [f"What's the tech behind {project}?", f"Which language and libraries power {project}?"],
            [f"stack{n}"],
        )
        db_text = r.choice([f"{project} stores its data in {db}.", f"{project} uses {db} as its database."])
        db_s = u.say(f"db{n}", db_text, ["data"])
        u.ask("single", [f"Which datastore backs {project}?", f"Where does {project} persist records?"], [f"db{n}"])
        u.say(f"ci{n}", f"The {project} pipeline runs on {ci}.", ["ci"], avoid=stack_s)
        u.ask(
            "single",
            [f"Which build server handles {project}'s checks?", f"What does {project} use for continuous integration?"],
            [f"ci{n}"],
        )
        u.ask(
            "multi",
            [
                f"Which build server tests the {framework} codebase?",
                f"For the app made with {framework}, what runs its automated checks?",
            ],
            [f"stack{n}", f"ci{n}"],
        )
        old_s = r.randrange(0, 7)
        new_s = r.randrange(old_s + 3, 14)
        u.say(f"old{n}", f"We deploy {project} to {old}.", ["deploy"], session=old_s)
        u.say(f"new{n}", f"We moved {project} off {old} and now deploy it to {new}.", ["deploy"], session=new_s)
        u.ask(
            "single", [f"Where does {project} ship to today?", f"What hosting is {project} on at present?"], [f"new{n}"]
        )
        u.ask(
            "temporal",
            [
                f"Back in {month_name(u.sessions[old_s])}, where was {project} hosted?",
                f"In {month_name(u.sessions[old_s])}, what platform was {project} released on?",
            ],
            [f"old{n}"],
        )
        if new_s != db_s:
            u.ask(
                "multi",
                [
                    f"Which datastore sits behind the service that's hosted on {new}?",
                    f"The app now living on {new}: what database does it keep records in?",
                ],
                [f"new{n}", f"db{n}"],
            )
        months = {}
        for s in range(len(u.sessions)):
            months.setdefault(u.sessions[s].month, s)
        for kind, items in (("decision", u.decisions[2 * n : 2 * n + 2]), ("incident", u.causes[2 * n : 2 * n + 2])):
            for m, s in enumerate(r.sample(sorted(months.values()), 2)):
                key, when = f"{kind}{n}{m}", month_name(u.sessions[s])
                if kind == "decision":
                    u.say(key, f"Decided to {items[m]} for {project}.", ["decision"], "decision", session=s)
                    u.ask(
                        "temporal",
                        [
                            f"What did I settle on for {project} back in {when}?",
                            f"In {when}, what call did I make regarding {project}?",
                        ],
                        [key],
                    )
                else:
                    u.say(key, f"{project} went down because of {items[m]}.", ["incident"], session=s)
                    u.ask(
                        "temporal",
                        [f"What broke {project} in {when}?", f"Why did {project} have an outage during {when}?"],
                        [key],
                    )
    while sum(len(t) for t in u.turns) < 86:
        text = r.choice(FILLERS).format(p=r.choice(u.projects), t=r.choice(TARGETS), s=species, partner=u.partner)
        u.say(f"filler{sum(len(t) for t in u.turns)}", text, ["chat"])


# -- the conversation each question is asked in ----------------------------------------------------------------

CHATTER = [  # what people say to an assistant besides questions about themselves: noise for retrieval
    ("Can you help me write a regex that matches ISO dates?", "Sure: \\d{4}-\\d{2}-\\d{2} is a start."),
    ("What's a good name for a function that retries with backoff?", "retry_with_backoff reads well."),
    ("Explain the difference between a process and a thread.", "A process has its own memory; threads share one."),
    ("I'm reviewing a pull request for {p} this afternoon.", "Good luck with the review."),
    ("The tests for {p} are flaky again today.", "Flaky tests often come from shared state or timing."),
    ("I need to write the design doc for {p}, any structure you'd suggest?", "Context, goals, options, decision."),
    ("I'm tired, it has been a long week.", "Sorry to hear that; take it easy tonight."),
    ("How do I undo my last git commit but keep the changes?", "git reset --soft HEAD~1."),
    ("I'm bumping dependencies in {p}.", "Check the changelogs for breaking changes first."),
    ("Summarise the CAP theorem in one sentence.", "Under a partition, choose consistency or availability."),
    ("I have a one-on-one with my manager tomorrow.", "Bring the two things you most want to discuss."),
    ("I'm profiling slow queries in {p}.", "Start with the queries that run most often."),
    ("Write me a haiku about Mondays.", "Coffee steam rising / inbox full before nine / the week stretches out."),
    ("My {s} woke me up at five today.", "An early start, then."),
    ("What's the keyboard shortcut to split a terminal pane in tmux?", 'Ctrl-b then % or ".'),
    ("I'm preparing a demo of {p} for Friday.", "Rehearse it once on a clean machine."),
]
ACKS = ["Sure, go ahead.", "Happy to help.", "Of course, what do you need?", "Okay.", "Got it."]
ORDINALS = ["first", "second", "third"]


def lead_in(u: User, key: str, r: random.Random) -> list[tuple[str, str]]:
    """What a user might say just before asking about ``key``'s subject, with the assistant's reply."""
    name = key.rstrip("0123456789")
    digits = key[len(name) :]
    n = int(digits[0]) if digits else 0
    project = u.projects[n] if digits else ""
    options: dict[str, list[str]] = {
        "job": ["I'm updating my CV tonight.", "I'm filling in a form for a mortgage application."],
        "city": ["I'm ordering some furniture online and need the delivery details.", "A friend wants to visit me."],
        "pet": [f"I'm buying a new bed for {u.pet_name}.", f"{u.pet_name} has been very playful today."],
        "vet": [f"{u.pet_name} has been limping since yesterday.", f"{u.pet_name} isn't eating much."],
        "allergy": ["We're trying a new restaurant tonight.", "I'm doing the weekly grocery shopping."],
        "partner": [f"{u.partner} had a long day today.", f"I'm filling in a form about {u.partner}."],
        "diet": [f"It's {u.partner}'s and my anniversary on Saturday.", "I'm planning the menu for the weekend."],
        "editor": ["I'm setting up a new laptop.", "I want to tweak my coding setup."],
        "hobby": ["I finally have a free weekend coming up.", "I need to unwind after this week."],
        "learning": ["I'm looking for a good book for my evening studies.", "I have an hour free tonight."],
        "standup": ["I'm booking a dentist appointment for a weekday morning.", "I'm planning tomorrow morning."],
        "verbosity": ["Before we start, a quick question about how you answer me.", "Let's set some ground rules."],
        "conf": ["I need to book a hotel for my trip.", "I'm packing my suitcase."],
        "event": ["I'm looking at my calendar for the coming weeks.", "I need to buy a gift soon."],
        "stack": [f"I'm writing the onboarding doc for {project}.", f"A new hire is joining the {project} team."],
        "db": [f"I'm planning a backup strategy for {project}.", f"{project} is getting slow on writes."],
        "ci": [f"The {project} checks failed on my branch.", f"I want to speed up the {project} build."],
        "new": [f"I'm updating the runbook for {project}.", f"Someone asked me how {project} is run."],
        "old": [f"I'm writing the history section of the {project} docs.", f"I'm looking back at {project}."],
        "decision": [
            f"I'm writing the yearly review of {project}.",
            f"A teammate asked why {project} is the way it is.",
        ],
        "incident": [f"I'm preparing the reliability report for {project}.", "We're doing a postmortem review."],
    }
    said = r.choice(options[name])
    reply = r.choice(ACKS) if not project or r.random() < 0.5 else f"Sure, what would you like to know about {project}?"
    return [(said, reply)]


def chatter(u: User, r: random.Random) -> tuple[str, str]:
    said, reply = r.choice(CHATTER)
    return said.format(p=r.choice(u.projects), s=u.pet[0]), reply


def context_for(u: User, keys: list[str], r: random.Random) -> list[dict]:
    """The new session's turns before a question: nothing, chatter, a lead-in on its subject, or both."""
    roll = r.random()
    exchanges: list[tuple[str, str]] = []
    if roll < 0.25:
        pass
    elif roll < 0.5:
        exchanges = [chatter(u, r) for _ in range(r.randint(1, 2))]
    elif roll < 0.8:
        exchanges = lead_in(u, r.choice(keys), r)
    else:
        exchanges = [chatter(u, r), *lead_in(u, r.choice(keys), r)]
    return [
        {"role": role, "content": text}
        for said, reply in exchanges
        for role, text in (("user", said), ("assistant", reply))
    ]


def followups(u: User, r: random.Random) -> list[dict]:
    """Questions that only make sense after the previous exchange: (context, question, the key it needs)."""
    asked: list[tuple[str, str, str, str]] = []  # first question, its answer, follow-up, key
    about = {  # for a project: how a user asks about one thing of it, how the assistant says it, how a follow-up asks
        "stack": (
            "What's {p} built with?",
            "{p} is written in {lang} with {fw}.",
            ["And what language is it in?", "What's it written in?", "Which framework does it use?"],
        ),
        "db": (
            "Which database does {p} use?",
            "{p} keeps its data in {db}.",
            ["And where does it store its data?", "Which datastore is behind it?", "What about its database?"],
        ),
        "ci": (
            "What runs the {p} checks?",
            "{p}'s pipeline runs on {ci}.",
            ["And what runs its automated tests?", "Which CI service does it use?", "How about its build server?"],
        ),
        "new": (
            "Where is {p} hosted?",
            "{p} is deployed to {new}.",
            ["And where is it hosted now?", "Where does it run these days?", "What about its hosting?"],
        ),
    }
    for n, project in enumerate(u.projects):
        lang, fw = u.stacks[n]
        fill = {"p": project, "lang": lang, "fw": fw, "db": u.dbs[n], "ci": u.cis[n], "new": u.targets[2 * n + 1]}
        first, then = r.sample(sorted(about), 2)
        asked.append(
            (about[first][0].format(**fill), about[first][1].format(**fill), r.choice(about[then][2]), f"{then}{n}")
        )
    listing = f"You've told me about {u.projects[0]}, {u.projects[1]} and {u.projects[2]}."
    for _ in range(2):
        n = r.randrange(3)
        then = r.choice(sorted(about))
        words = {"stack": "the tech stack", "db": "the database", "ci": "the CI", "new": "the hosting"}[then]
        asked.append(
            (
                "Which projects have I mentioned to you?",
                listing,
                f"And what about {words} of the {ORDINALS[n]} one?",
                f"{then}{n}",
            )
        )
    asked.append(
        (
            f"What does {u.partner} do for work?",
            f"{u.partner} is {'an' if u.partner_job[0] in 'aeiou' else 'a'} {u.partner_job}.",
            r.choice(["Does my partner have any dietary rules?", "And what do they eat, or not eat?"]),
            "diet",
        )
    )
    asked.append(
        (
            f"What kind of animal is {u.pet_name}?",
            f"{u.pet_name} is a {u.pet[0]}.",
            r.choice(["And where do I take them for checkups?", "Which vet do we go to?"]),
            "vet",
        )
    )
    asked.append(
        (
            "Which conference am I going to?",
            f"You're going to {u.conf[0]}.",
            r.choice(["When do I fly out?", "And on what day is the trip?"]),
            "conf",
        )
    )
    out = []
    for first, answer, question, key in asked:
        prefix = [chatter(u, r)] if r.random() < 0.3 else []
        turns = [*prefix, (first, answer)]
        context = [
            {"role": role, "content": t} for said, reply in turns for role, t in (("user", said), ("assistant", reply))
        ]
        out.append({"type": "followup", "question": question, "keys": [key], "context": context})
    return out


def as_question(u: User, q: dict) -> dict:
    evidence = [u.by_key[k][1]["id"] for k in q["keys"]]
    return {"user": u.name, "type": q["type"], "question": q["question"], "evidence": evidence, "context": q["context"]}


def main() -> int:
    rng = random.Random(SEED)
    n = 12
    shuffled = {
        name: rng.sample(pool, len(pool))
        for name, pool in {"role": ROLES, "company": COMPANIES, "city": CITIES, "partner": PARTNERS}.items()
    }
    pools: dict[str, list] = {**shuffled}
    pools["pet"] = [rng.choice(PETS) for _ in range(n)]
    pools["pet_name"] = rng.sample(PET_NAMES, n)
    pools["clinic"] = [rng.choice(CLINICS) for _ in range(n)]
    pools["allergen"] = [rng.choice(ALLERGENS) for _ in range(n)]
    pools["diet"] = [rng.choice(DIETS) for _ in range(n)]
    pools["partner_job"] = [rng.choice(PARTNER_JOBS) for _ in range(n)]
    pools["editor"] = [rng.choice(EDITORS) for _ in range(n)]
    pools["hobby"] = [rng.choice(HOBBIES) for _ in range(n)]
    pools["learning"] = [rng.choice(LEARNING) for _ in range(n)]
    pools["standup"] = [rng.choice(STANDUPS) for _ in range(n)]
    pools["conf"] = [rng.choice(CONFS) for _ in range(n)]
    pools["relatives"] = [rng.sample(RELATIVES, 2) for _ in range(n)]
    projects = rng.sample(PROJECTS, 3 * n)
    pools["projects"] = [projects[3 * i : 3 * i + 3] for i in range(n)]
    pools["stacks"] = [rng.sample(STACKS, 3) for _ in range(n)]
    pools["dbs"] = [rng.sample(DATABASES, 3) for _ in range(n)]
    pools["cis"] = [rng.choices(CIS, k=3) for _ in range(n)]
    pools["targets"] = [rng.sample(TARGETS, 6) for _ in range(n)]
    pools["decisions"] = [rng.sample(DECISIONS, 6) for _ in range(n)]
    pools["causes"] = [rng.sample(CAUSES, 6) for _ in range(n)]

    memories: list[dict] = []
    questions: list[dict] = []
    extra: list[tuple[User, dict]] = []
    for i in range(n):
        user = User(i, random.Random(SEED * 1000 + i), pools)
        build_user(user)
        for s, turns in enumerate(user.turns):
            user.rng.shuffle(turns)
            for t, turn in enumerate(turns):
                turn["id"] = f"m-{len(memories) + 1}"
                ts = user.sessions[s] + timedelta(minutes=2 * t)
                memories.append(
                    {
                        "id": turn["id"],
                        "user": user.name,
                        "text": turn["text"],
                        "tags": turn["tags"],
                        "category": turn["category"],
                        "scope": "user",
                        "source": "explicit",
                        "ts": ts.strftime("%Y-%m-%dT%H:%M:%SZ"),
                        "session": f"{user.name}-s{s + 1:02d}",
                    }
                )
        talk = random.Random(SEED * 1000 + 500 + i)  # its own stream: the questions above stay as they were
        for q in user.questions:
            q["context"] = context_for(user, q["keys"], talk)
        extra.extend((user, q) for q in followups(user, talk))
        for q in user.questions:
            questions.append(as_question(user, q))

    split_rng = random.Random(SEED + 1)
    for qtype in ("single", "multi", "temporal"):
        chosen = [q for q in questions if q["type"] == qtype]
        split_rng.shuffle(chosen)
        for j, q in enumerate(chosen):
            q["split"] = "dev" if j % 2 == 0 else "test"
    for j, q in enumerate(questions):
        q["id"] = f"q-{j + 1}"
    later = [as_question(user, q) for user, q in extra]  # appended, so earlier ids stay
    random.Random(SEED + 2).shuffle(order := list(range(len(later))))
    for rank, j in enumerate(order):
        later[j]["split"] = "dev" if rank % 2 == 0 else "test"
    for j, q in enumerate(later):
        q["id"] = f"q-{len(questions) + j + 1}"
    questions += later
    OUT.mkdir(exist_ok=True)
    (OUT / "memories.jsonl").write_text("".join(json.dumps(m) + "\n" for m in memories))
    keys = ("id", "user", "type", "question", "evidence", "split", "context")
    (OUT / "questions.jsonl").write_text("".join(json.dumps({k: q[k] for k in keys}) + "\n" for q in questions))
    counts = {t: sum(q["type"] == t for q in questions) for t in ("single", "multi", "temporal", "followup")}
    print(
        f"{len(memories)} memories, {n} users, {len(questions)} questions {counts}, "
        f"{sum(q['split'] == 'test' for q in questions)} test"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
