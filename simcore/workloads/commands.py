"""The workload layer's `simcore` subcommands: fetch, model, resample, example."""

from __future__ import annotations

from simcore.workloads.catalogue import fetch_trace, load_catalogue
from simcore.workloads.example import write_example
from simcore.workloads.files import read_workload, workload_provenance, write_variants, write_workload
from simcore.workloads.lublin import lublin_workload
from simcore.workloads.resample import RESAMPLE_METHODS, resample, variant_seed


def add_commands(commands) -> None:
    fetch = commands.add_parser("fetch", help="fetch a catalogued PWA trace, verified by sha256")
    fetch.add_argument("name", help="trace name in the catalogue")
    fetch.add_argument("--catalogue", required=True, metavar="FILE.yaml")
    fetch.add_argument("--mirror", metavar="DIR_OR_URL", help="tried before the archive")
    fetch.add_argument("--output", "-o", required=True, metavar="FILE.swf.gz")

    model = commands.add_parser("model", help="generate a Lublin-Feitelson workload (Parquet)")
    model.add_argument("--jobs", type=int, required=True)
    model.add_argument("--machine-size", type=int, required=True)
    model.add_argument("--seed", type=int, required=True)
    model.add_argument("--output", "-o", required=True, metavar="FILE.parquet")

    resample = commands.add_parser("resample", help="resampled variants of a workload (SEMANTICS §8)")
    resample.add_argument("workload", metavar="WORKLOAD.parquet", help="from `simcore filter` or `model`")
    resample.add_argument("--variants", type=int, default=100)
    resample.add_argument("--base-seed", type=int, default=0, help="variant i uses seed base + i")
    resample.add_argument("--method", choices=RESAMPLE_METHODS, default="user-weeks")
    resample.add_argument("--weeks", type=int, help="length of a variant (default: the log's interior)")
    resample.add_argument("--output", "-o", required=True, metavar="VARIANTS.parquet")

    example = commands.add_parser("example", help="write the generated example workload (SWF)")
    example.add_argument("--output", "-o", default="example.swf", metavar="FILE.swf")
    example.add_argument("--jobs", type=int, default=2000)
    example.add_argument("--seed", type=int, default=2024)


def run_example(args) -> int:
    write_example(args.output, jobs=args.jobs, seed=args.seed)
    print(args.output)
    return 0


def run_fetch(args) -> int:
    catalogue = load_catalogue(args.catalogue)
    if args.name not in catalogue:
        raise ValueError(f"{args.catalogue}: no trace named {args.name!r} "
                         f"(known: {', '.join(sorted(catalogue))})")
    source = fetch_trace(args.name, catalogue[args.name], args.output, mirror=args.mirror)
    print(f"{args.output}: {args.name} from {source}, checksum verified")
    return 0


def run_model(args) -> int:
    workload = lublin_workload(args.jobs, args.machine_size, args.seed)
    write_workload(workload, args.output, {"command": "model", "model": "lublin", "seed": args.seed})
    print(f"{args.output}: {len(workload):,} jobs on {args.machine_size} processors (seed {args.seed})")
    return 0


def run_resample(args) -> int:
    workload = read_workload(args.workload)
    variants = {i: resample(workload, variant_seed(args.base_seed, i), args.method, args.weeks)[0]
                for i in range(args.variants)}
    write_variants(variants, args.output, {
        **workload_provenance(workload), "command": "resample", "method": args.method, "weeks": args.weeks,
        "base_seed": args.base_seed, "variants": args.variants})
    print(f"{args.output}: {args.variants} variants of {workload.source}")
    return 0


COMMANDS = {"fetch": run_fetch, "model": run_model, "resample": run_resample, "example": run_example}
