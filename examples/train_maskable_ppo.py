"""MaskablePPO (sb3-contrib) on JobSelection-v0, evaluated on held-out sequences against FCFS and SJF.

    python3 -m pip install -e '.[rl]'
    python3 examples/train_maskable_ppo.py [--steps 200000] [--envs 8] [--output results/rl_example]

Training and evaluation use one Lublin–Feitelson model (256 processors, 20,000 jobs, seed 7):
training episodes are 256-job sequences from its first 15,000 jobs, evaluation the 20 sequences of
its last 5,000 that `default_rng(1)` draws, never seen in training. The agent picks the head among
the 128 first waiting jobs (EASY backfilling around it); the reward is minus the episode's average
bounded slowdown, by default dense (each job's share at the step after it starts; `--final-reward`:
at the end only), normalised by its running scale. Every `--eval-every` steps the policy
(deterministic) is scored on the held-out sequences; FCFS and SJF (SPF: shortest requested time
first, EASY) are the core's own runs of the same sequences. Writes `learning_curve.csv` and
`learning_curve.png` in `--output`.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

from simcore.reporting.figures import plt, save
from simcore.studies.job_selection.env import JobSelectionEnv
from simcore.workloads.lublin import lublin_workload

TRAIN_JOBS = 15_000


def held_out_starts(workload, sequences: int, length: int) -> np.ndarray:
    return TRAIN_JOBS + np.random.default_rng(1).integers(0, len(workload) - TRAIN_JOBS - length + 1, sequences)


def evaluate(model, env: JobSelectionEnv, starts) -> dict:
    """Mean AVEbsld of the policy, FCFS and SJF over the held-out sequences."""
    scores = {"PPO": [], "FCFS": [], "SJF": []}
    for start in starts:
        obs, info = env.reset(options={"start": int(start)})
        terminated = False
        while not terminated:
            action, _ = model.predict(obs, deterministic=True, action_masks=env.action_masks())
            obs, reward, terminated, _, info = env.step(int(action))
        scores["PPO"].append(info["metrics"]["avg_bsld"])
        scores["FCFS"].append(-info["baselines"]["FCFS"])
        scores["SJF"].append(-info["baselines"]["SPF"])
    return {name: float(np.mean(values)) for name, values in scores.items()}


def main() -> None:
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.wrappers import ActionMasker
    from stable_baselines3.common.vec_env import DummyVecEnv, VecNormalize

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200_000)
    parser.add_argument("--envs", type=int, default=8)
    parser.add_argument("--eval-every", type=int, default=20_000)
    parser.add_argument("--sequences", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--final-reward", action="store_true", help="the episode's reward at its end only")
    parser.add_argument("--output", type=Path, default=Path("results/rl_example"))
    args = parser.parse_args()

    workload = lublin_workload(20_000, 256, 7)
    training = workload.take(np.arange(TRAIN_JOBS))
    options = {"sequence_length": 256, "window": 128}

    def make_training_env():
        env = JobSelectionEnv(training, dense=not args.final_reward, **options)
        return ActionMasker(env, lambda env: env.unwrapped.action_masks())

    # rewards are bounded slowdowns (tens to thousands): normalised by their running scale
    vector = VecNormalize(DummyVecEnv([make_training_env for _ in range(args.envs)]), norm_obs=False)
    vector.seed(args.seed)
    model = MaskablePPO("MlpPolicy", vector, seed=args.seed, n_steps=256, batch_size=256, verbose=0)
    evaluation = JobSelectionEnv(workload, baselines=("FCFS", "SPF"), **options)
    starts = held_out_starts(workload, args.sequences, options["sequence_length"])
    curve = [{"steps": 0, **evaluate(model, evaluation, starts)}]
    print(curve[-1])
    while curve[-1]["steps"] < args.steps:
        model.learn(args.eval_every, reset_num_timesteps=False)
        curve.append({"steps": model.num_timesteps, **evaluate(model, evaluation, starts)})
        print(curve[-1])
    frame = pd.DataFrame(curve)
    args.output.mkdir(parents=True, exist_ok=True)
    frame.to_csv(args.output / "learning_curve.csv", index=False)
    figure, axis = plt.subplots(figsize=(5.5, 3.4))
    axis.plot(frame["steps"], frame["PPO"], marker="o", label="MaskablePPO (deterministic)")
    for name, style in (("FCFS", "--"), ("SJF", ":")):
        axis.axhline(frame[name].iloc[0], color="black", linestyle=style, label=f"{name} (EASY)")
    axis.set_xlabel("training steps (decisions)")
    axis.set_ylabel("mean AVEbsld, held-out sequences")
    axis.set_yscale("log")
    axis.legend()
    axis.set_title(f"JobSelection-v0 on a Lublin model, {args.sequences} held-out sequences")
    save(figure, [args.output / "learning_curve.png"])


if __name__ == "__main__":
    main()
