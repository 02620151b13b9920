"""A site's `slurm.conf`, read as Slurm 22.05 reads it: the nodes (CPUs, memory, weight), the
partitions (their nodes in order, limits, sharing), what the select plugin counts
(`SelectTypeParameters`), the scheduler (`SchedulerType`, `SchedulerParameters`) and the `Priority*`
settings, each with Slurm's default when the file leaves it out.

The defaults and the value forms are those of Slurm 22.05's sources (slurm-22-05-8-1):
`src/common/read_config.c` (keys, `Priority*`), `src/common/parse_time.c` (time strings),
`src/plugins/sched/backfill/backfill.c` (`bf_*`), `src/slurmctld/job_scheduler.c`
(`default_queue_depth`, `sched_interval`) and `src/common/hostlist.c` (`node[01-32]`). Keys are
case-insensitive, `#` starts a comment, a trailing `\\` joins the next line as it is; keys this reader does
not use are ignored, and `SlurmConf.keys_used` names every key it took a value from (for a
result's provenance).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import product
from pathlib import Path

# Slurm's INFINITE, UNLIMITED and -1 time limits
UNLIMITED = None

# SchedulerParameters' defaults in Slurm 22.05, seconds unless named otherwise
SCHEDULER_DEFAULTS = {
    "bf_interval": 30,  # BACKFILL_INTERVAL
    "bf_resolution": 60,  # BACKFILL_RESOLUTION
    "bf_window": 24 * 60 * 60,  # BACKFILL_WINDOW (the option is in minutes)
    "bf_max_job_test": 500,  # DEF_BF_MAX_JOB_TEST
    "bf_max_job_part": 0,  # no limit per partition
    "bf_job_part_count_reserve": 0,  # every pending job may hold a reservation
    "bf_continue": False,
    "default_queue_depth": 100,  # def_job_limit
    "batch_sched_delay": 3,  # controller.c: submissions' passes at most this often
    "partition_job_depth": 0,
    "sched_interval": 60,
}
# The `Priority*` settings' defaults in Slurm 22.05 (times in seconds)
PRIORITY_DEFAULTS = {
    "type": "priority/basic",
    "weight_age": 0,
    "weight_fairshare": 0,
    "weight_job_size": 0,
    "weight_partition": 0,
    "weight_qos": 0,
    "weight_assoc": 0,
    "max_age": 7 * 86400,  # DEFAULT_PRIORITY_DECAY
    "decay_half_life": 7 * 86400,
    "calc_period": 300,  # DEFAULT_PRIORITY_CALC_PERIOD
    "usage_reset_period": "none",
    "favor_small": False,
    "fair_tree": True,  # the default since 19.05; NO_FAIR_TREE or DEPTH_OBLIVIOUS turn it off
    "small_relative_to_time": False,
    "depth_oblivious": False,
    "dampening": 1,  # FairShareDampeningFactor
    "flags": (),
}
RESET_PERIODS = ("none", "now", "daily", "weekly", "monthly", "quarterly", "yearly")


class SlurmConfError(ValueError):
    """A slurm.conf this reader cannot take, naming the file, the line and what is wrong."""


def time_seconds(text: str) -> int | None:
    """A Slurm time string in seconds (parse_time.c's time_str2secs): `days-hours[:min[:sec]]`,
    `hours:min:sec` or `min[:sec]`; None for INFINITE, UNLIMITED and -1."""
    value = text.strip()
    if value.upper() in ("INFINITE", "UNLIMITED", "-1"):
        return UNLIMITED
    days = re.fullmatch(r"(\d+)-(\d+)(?::(\d+))?(?::(\d+))?", value)
    if days:
        d, h, m, s = (int(part or 0) for part in days.groups())
        return d * 86400 + h * 3600 + m * 60 + s
    parts = value.split(":")
    if not all(part.isdigit() for part in parts) or not 1 <= len(parts) <= 3:
        raise ValueError(f"{text!r} is not a Slurm time (minutes, min:sec, h:min:sec or days-h[:min[:sec]])")
    numbers = [int(part) for part in parts]
    if len(numbers) == 3:
        return numbers[0] * 3600 + numbers[1] * 60 + numbers[2]
    return numbers[0] * 60 + (numbers[1] if len(numbers) == 2 else 0)


def time_minutes_in_seconds(text: str) -> int | None:
    """A time string read as Slurm reads PriorityMaxAge and its kin (time_str2mins): whole minutes,
    rounded up, in seconds."""
    seconds = time_seconds(text)
    return seconds if seconds is None else -(-seconds // 60) * 60


def expand_hostlist(text: str) -> list[str]:
    """The host names of a hostlist expression, in order: `node[01-03,7],gpu1` is node01, node02,
    node03, node7, gpu1 (a range keeps its lower bound's zero padding); several bracket groups
    in one name give every combination, as hostlist.c does."""
    names: list[str] = []
    for item in _split_outside_brackets(text.strip()):
        if not item:
            continue
        pieces = re.split(r"(\[[^\]]*\])", item)
        choices = []
        for piece in pieces:
            if piece.startswith("["):
                choices.append(_bracket_names(piece[1:-1], item))
            elif piece:
                choices.append([piece])
        names += ["".join(combination) for combination in product(*choices)]
    return names


def _split_outside_brackets(text: str) -> list[str]:
    items, depth, current = [], 0, []
    for character in text:
        depth += character == "["
        depth -= character == "]"
        if character == "," and depth == 0:
            items.append("".join(current))
            current = []
        else:
            current.append(character)
    if depth:
        raise ValueError(f"hostlist {text!r}: unbalanced brackets")
    items.append("".join(current))
    return items


def _bracket_names(ranges: str, item: str) -> list[str]:
    names = []
    for part in ranges.split(","):
        bounds = part.split("-")
        if not all(bound.isdigit() for bound in bounds) or len(bounds) not in (1, 2):
            raise ValueError(f"hostlist {item!r}: {part!r} is not a number or a range of numbers")
        first, last = int(bounds[0]), int(bounds[-1])
        if last < first:
            raise ValueError(f"hostlist {item!r}: the range {part!r} runs backwards")
        width = len(bounds[0])
        names += [str(number).zfill(width) for number in range(first, last + 1)]
    return names


@dataclass(frozen=True)
class Node:
    """A node: its CPUs, its memory in MB (RealMemory) and its weight (lower is allocated first)."""

    name: str
    cpus: int
    memory_mb: int = 1
    weight: int = 1


@dataclass(frozen=True)
class Partition:
    """A partition: its nodes in slurm.conf's order, its time limits (seconds; None: unlimited) and
    whether it gives whole nodes (OverSubscribe=EXCLUSIVE)."""

    name: str
    nodes: tuple[str, ...]
    default: bool = False
    max_time: int | None = UNLIMITED
    default_time: int | None = None
    exclusive: bool = False
    priority_job_factor: int = 1
    priority_tier: int = 1
    state: str = "UP"


@dataclass(frozen=True)
class SlurmConf:
    """What a simulation needs of a site's slurm.conf (read_slurm_conf)."""

    path: str
    nodes: dict[str, Node]
    partitions: dict[str, Partition]
    # Slurm 22.05's defaults: select/linear gives whole nodes; select/cons_res and cons_tres count
    # CR_CPU, CR_Core or CR_Socket, and memory too with _Memory (CR_Core_Memory when not given)
    select_type: str = "select/linear"
    consumable: str = "CR_Core"
    memory_consumable: bool = True
    scheduler_type: str = "sched/backfill"
    scheduler: dict = field(default_factory=lambda: dict(SCHEDULER_DEFAULTS))
    priority: dict = field(default_factory=lambda: dict(PRIORITY_DEFAULTS))
    def_mem_per_cpu: int | None = None  # MB
    def_mem_per_node: int | None = None  # MB
    enforce_limits: bool = False  # AccountingStorageEnforce with limits, safe or all
    kill_wait: int = 30  # KillWait, seconds
    over_time_limit: int = 0  # OverTimeLimit, in seconds (the key is in minutes)
    keys_used: tuple[str, ...] = ()

    @property
    def backfill(self) -> bool:
        """Whether the scheduler backfills (sched/backfill) or only starts in priority order."""
        return self.scheduler_type == "sched/backfill"

    def default_partition(self) -> Partition:
        """The partition a job that names none runs in: the one marked Default=YES, else the first."""
        for partition in self.partitions.values():
            if partition.default:
                return partition
        return next(iter(self.partitions.values()))


def _logical_lines(path: Path):
    """(line number, text) of each logical line: comments dropped, continuations joined."""
    pending, first = "", None
    for number, raw in enumerate(path.read_text().splitlines(), start=1):
        line = re.sub(r"(?<!\\)#.*", "", raw).replace("\\#", "#").rstrip()
        if first is None:
            first = number
        if line.endswith("\\"):  # joined to the next line as it is, as parse_config.c does
            pending += line[:-1]
            continue
        text = (pending + line).strip()
        if text:
            yield first, text
        pending, first = "", None
    if pending.strip():
        yield first, pending.strip()


def _pairs(text: str, where: str) -> list[tuple[str, str]]:
    """The `Key=Value` pairs of a line (a value may be double-quoted)."""
    pairs = []
    for match in re.finditer(r'(\S+?)=("[^"]*"|\S*)|(\S+)', text):
        if match.group(3) is not None:
            raise SlurmConfError(f"{where}: {match.group(3)!r} is not Key=Value")
        pairs.append((match.group(1), match.group(2).strip('"')))
    return pairs


def _boolean(value: str, where: str) -> bool:
    lowered = value.lower()
    if lowered in ("yes", "true", "1"):
        return True
    if lowered in ("no", "false", "0"):
        return False
    raise SlurmConfError(f"{where}: {value!r} is not YES or NO")


def _integer(value: str, where: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise SlurmConfError(f"{where}: {value!r} is not an integer") from None


def read_slurm_conf(path) -> SlurmConf:
    """The slurm.conf at `path`; SlurmConfError names the line of a value it cannot read. An
    `Include` line is refused (name the file it includes instead)."""
    path = Path(path)
    node_defaults: dict[str, str] = {}
    partition_defaults: dict[str, str] = {}
    node_lines: list[tuple[str, dict[str, str]]] = []
    partition_lines: list[tuple[str, dict[str, str]]] = []
    settings: dict[str, tuple[str, str]] = {}  # lower-case key -> (value, where)
    for number, text in _logical_lines(path):
        where = f"{path}:{number}"
        if text.split()[0].lower() == "include":
            raise SlurmConfError(f"{where}: Include is not followed; give the included file's settings in one file")
        pairs = _pairs(text, where)
        key, value = pairs[0]
        record = {k.lower(): v for k, v in pairs[1:]}
        if key.lower() == "nodename":
            if value.upper() == "DEFAULT":
                node_defaults.update(record)
            else:
                node_lines.append((where, {"nodename": value, **node_defaults, **record}))
        elif key.lower() == "partitionname":
            if value.upper() == "DEFAULT":
                partition_defaults.update(record)
            else:
                partition_lines.append((where, {"partitionname": value, **partition_defaults, **record}))
        else:
            for k, v in pairs:
                settings[k.lower()] = (v, where)
    if not node_lines:
        raise SlurmConfError(f"{path}: no NodeName line")
    if not partition_lines:
        raise SlurmConfError(f"{path}: no PartitionName line")
    nodes = _nodes(node_lines)
    partitions = _partitions(partition_lines, nodes)
    used = {"NodeName", "PartitionName"}

    def setting(key: str):
        found = settings.get(key.lower())
        if found is not None:
            used.add(key)
        return found

    select_type = (setting("SelectType") or ("select/linear", ""))[0]
    select = setting("SelectTypeParameters")
    # cons_common.c: without parameters, cons_res and cons_tres count CR_Core_Memory
    consumable, memory = _select_parameters(*select) if select else ("CR_Core", True)
    scheduler = _scheduler_parameters(setting("SchedulerParameters"))
    memory_per_cpu = setting("DefMemPerCPU")
    memory_per_node = setting("DefMemPerNode")
    kill_wait = setting("KillWait")
    return SlurmConf(
        path=str(path),
        nodes=nodes,
        partitions=partitions,
        select_type=select_type,
        consumable=consumable,
        memory_consumable=memory,
        scheduler_type=(setting("SchedulerType") or ("sched/backfill", ""))[0],
        scheduler=scheduler,
        priority=_priority(setting),
        def_mem_per_cpu=_integer(*memory_per_cpu) if memory_per_cpu else None,
        def_mem_per_node=_integer(*memory_per_node) if memory_per_node else None,
        enforce_limits=_enforces_limits(setting("AccountingStorageEnforce")),
        kill_wait=_integer(*kill_wait) if kill_wait else 30,
        over_time_limit=_over_time_limit(setting("OverTimeLimit")),
        keys_used=tuple(sorted(used)),
    )


def _nodes(lines) -> dict[str, Node]:
    nodes: dict[str, Node] = {}
    for where, record in lines:
        try:
            names = expand_hostlist(record["nodename"])
        except ValueError as error:
            raise SlurmConfError(f"{where}: NodeName: {error}") from None
        if "cpus" in record or "procs" in record:
            cpus = _integer(record.get("cpus", record.get("procs")), where)
        else:  # Boards x SocketsPerBoard (or Sockets) x CoresPerSocket x ThreadsPerCore, each 1 by default
            sockets = record.get("socketsperboard", record.get("sockets", "1"))
            cpus = 1
            for value in (record.get("boards", "1"), sockets, record.get("corespersocket", "1")):
                cpus *= _integer(value, where)
            cpus *= _integer(record.get("threadspercore", "1"), where)
        memory = _integer(record.get("realmemory", "1"), where)
        weight = _integer(record.get("weight", "1"), where)
        if cpus < 1:
            raise SlurmConfError(f"{where}: a node needs at least one CPU, got {cpus}")
        for name in names:
            if name in nodes:
                raise SlurmConfError(f"{where}: node {name} is defined twice")
            nodes[name] = Node(name, cpus, memory, weight)
    return nodes


def _partitions(lines, nodes: dict[str, Node]) -> dict[str, Partition]:
    partitions: dict[str, Partition] = {}
    for where, record in lines:
        name = record["partitionname"]
        listed = record.get("nodes", "")
        try:
            members = list(nodes) if listed.upper() == "ALL" else expand_hostlist(listed)
        except ValueError as error:
            raise SlurmConfError(f"{where}: Nodes: {error}") from None
        unknown = [member for member in members if member not in nodes]
        if unknown:
            raise SlurmConfError(f"{where}: partition {name} names nodes no NodeName line defines: {unknown[:5]}")
        try:
            max_time = time_seconds(record["maxtime"]) if "maxtime" in record else UNLIMITED
            default_time = time_seconds(record["defaulttime"]) if "defaulttime" in record else None
        except ValueError as error:
            raise SlurmConfError(f"{where}: {error}") from None
        partitions[name] = Partition(
            name=name,
            nodes=tuple(members),
            default=_boolean(record.get("default", "NO"), where),
            max_time=max_time,
            default_time=default_time,
            exclusive=record.get("oversubscribe", record.get("shared", "NO")).upper() == "EXCLUSIVE",
            priority_job_factor=_integer(record.get("priorityjobfactor", "1"), where),
            priority_tier=_integer(record.get("prioritytier", record.get("priority", "1")), where),
            state=record.get("state", "UP").upper(),
        )
    return partitions


def _select_parameters(value: str, where: str) -> tuple[str, bool]:
    """(what is counted, whether memory is consumable) of SelectTypeParameters: its CR_* items add up
    (slurm_selecttype_info.c), and one of CR_CPU, CR_Core, CR_Socket is needed (cons_common.c)."""
    units, memory = set(), False
    for item in value.split(","):
        match = re.fullmatch(r"CR_(CPU|Core|Socket|Memory)(_Memory)?", item.strip(), re.IGNORECASE)
        if not match:
            continue  # another parameter (other_cons_tres, CR_LLN, ...) the simulation does not model
        kind = match.group(1).lower()
        memory |= kind == "memory" or bool(match.group(2))
        if kind != "memory":
            units.add({"cpu": "CR_CPU", "core": "CR_Core", "socket": "CR_Socket"}[kind])
    if len(units) != 1:
        raise SlurmConfError(f"{where}: SelectTypeParameters {value!r}: name one of CR_CPU, CR_Core, CR_Socket")
    return units.pop(), memory


def _scheduler_parameters(found) -> dict:
    """SchedulerParameters over Slurm's defaults (bf_window given in minutes, kept in seconds)."""
    chosen = dict(SCHEDULER_DEFAULTS)
    if not found:
        return chosen
    value, where = found
    for item in value.split(","):
        key, equals, text = item.strip().partition("=")
        key = key.lower()
        if key not in chosen:
            continue  # a parameter the simulation does not model
        if isinstance(chosen[key], bool):
            chosen[key] = True
            continue
        if not equals:
            raise SlurmConfError(f"{where}: SchedulerParameters {key} needs a value")
        number = _integer(text, where)
        chosen[key] = number * 60 if key == "bf_window" else number
    if chosen["bf_interval"] < 1 or chosen["bf_resolution"] < 1:
        raise SlurmConfError(f"{where}: bf_interval and bf_resolution must be at least 1 s")
    return chosen


def _priority(setting) -> dict:
    """The Priority* settings over Slurm's defaults."""
    chosen = dict(PRIORITY_DEFAULTS)
    found = setting("PriorityType")
    if found:
        chosen["type"] = found[0]
    for key, name in (
        ("weight_age", "PriorityWeightAge"),
        ("weight_fairshare", "PriorityWeightFairshare"),
        ("weight_job_size", "PriorityWeightJobSize"),
        ("weight_partition", "PriorityWeightPartition"),
        ("weight_qos", "PriorityWeightQOS"),
        ("weight_assoc", "PriorityWeightAssoc"),
    ):
        found = setting(name)
        if found:
            chosen[key] = _integer(*found)
    for key, name in (
        ("max_age", "PriorityMaxAge"),
        ("decay_half_life", "PriorityDecayHalfLife"),
        ("calc_period", "PriorityCalcPeriod"),
    ):
        found = setting(name)
        if found:
            try:
                chosen[key] = time_minutes_in_seconds(found[0])
            except ValueError as error:
                raise SlurmConfError(f"{found[1]}: {name}: {error}") from None
    found = setting("PriorityUsageResetPeriod")
    if found:
        if found[0].lower() not in RESET_PERIODS:
            raise SlurmConfError(
                f"{found[1]}: PriorityUsageResetPeriod {found[0]!r}: one of {', '.join(RESET_PERIODS)}"
            )
        chosen["usage_reset_period"] = found[0].lower()
    found = setting("PriorityFavorSmall")
    if found:
        chosen["favor_small"] = _boolean(*found)
    found = setting("PriorityFlags")
    if found:
        flags = tuple(flag.strip().upper() for flag in found[0].split(",") if flag.strip())
        chosen["flags"] = flags
        chosen["fair_tree"] = not ({"NO_FAIR_TREE", "DEPTH_OBLIVIOUS"} & set(flags))
        chosen["small_relative_to_time"] = "SMALL_RELATIVE_TO_TIME" in flags
        chosen["depth_oblivious"] = "DEPTH_OBLIVIOUS" in flags
    found = setting("FairShareDampeningFactor")
    if found:
        chosen["dampening"] = _integer(*found)
        if chosen["dampening"] < 1:
            raise SlurmConfError(f"{found[1]}: FairShareDampeningFactor must be at least 1")
    return chosen


def _over_time_limit(found) -> int:
    """OverTimeLimit in seconds (minutes in the file); UNLIMITED is refused (never killed)."""
    if not found:
        return 0
    if found[0].strip().upper() in ("UNLIMITED", "INFINITE"):
        raise SlurmConfError(f"{found[1]}: OverTimeLimit=UNLIMITED (jobs never killed) is not modelled")
    return _integer(*found) * 60


def _enforces_limits(found) -> bool:
    """AccountingStorageEnforce sets ACCOUNTING_ENFORCE_LIMITS (read_config.c): `limits` (or 2),
    `safe`, `all`. Only then does a job's end add its last usage (acct_policy.c)."""
    if not found:
        return False
    return bool({item.strip().lower() for item in found[0].split(",")} & {"limits", "2", "safe", "all"})
