"""MaskablePPO (sb3-contrib) on JobSelection-v0, evaluated on held-out sequences against FCFS and SJF.

    python3 -m pip install -e '.[rl]'
    python3 examples/train_maskable_ppo.py [--steps 400000] [--envs 8] [--backfill none] [--output results/rl_example]

Training and evaluation use one Lublin–Feitelson model (256 processors, 20,000 jobs, seed 7):
training episodes are 256-job sequences from its first 15,000 jobs, evaluation the 50 sequences of
its last 5,000 that `default_rng(1)` draws, never seen in training. The agent picks the head among
the 128 first waiting jobs, without backfilling by default (RLScheduler's first setting: the choice
is everything; with `--backfill easy` the backfilling in submission order does most of the work and
head choices move the mean by a few per cent only). The reward is minus the episode's average
bounded slowdown, by default dense (the jobs' bounded slowdowns as their waits grow; `--final-reward`:
at the end only), normalised by its running scale. The actor is a per-job network (`per_job_policy`).
Every `--eval-every` steps the policy (deterministic) is scored on the held-out sequences, beside
FCFS and SJF picking through the same env (the first slot; the shortest requested time) and the
core's own SJF, which re-picks its head at every pass where the env's choice is a commitment.
Writes `learning_curve.csv` and `learning_curve.png` in `--output`.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

from simcore.reporting.figures import plt, save
from simcore.studies.job_selection.env import JOB_FEATURES, MACHINE_FEATURES, JobSelectionEnv, OrderPolicy
from simcore.workloads.lublin import lublin_workload

TRAIN_JOBS = 15_000


def held_out_starts(workload, sequences: int, length: int) -> np.ndarray:
    return TRAIN_JOBS + np.random.default_rng(1).integers(0, len(workload) - TRAIN_JOBS - length + 1, sequences)


def mean_avebsld(env: JobSelectionEnv, starts, pick) -> float:
    """The mean over the held-out sequences of the AVEbsld of `pick(env, observation)`."""
    scores = []
    for start in starts:
        obs, info = env.reset(options={"start": int(start)})
        terminated = False
        while not terminated:
            obs, reward, terminated, _, info = env.step(pick(env, obs))
        scores.append(info["metrics"]["avg_bsld"])
    return float(np.mean(scores))


def baselines(env: JobSelectionEnv, starts) -> dict:
    """FCFS and SJF through the env, and the core's SJF (its own run of each sequence)."""
    shortest = OrderPolicy("SPF")
    core = []
    for start in starts:
        env.reset(options={"start": int(start)})
        core.append(env.baseline_run("SPF").summary()["avg_bsld"])
    return {
        "FCFS": mean_avebsld(env, starts, lambda env, obs: 0),
        "SJF": mean_avebsld(env, starts, lambda env, obs: shortest(env)),
        "SJF, core (re-picks)": float(np.mean(core)),
    }


def per_job_policy():
    """MaskablePPO's policy with RLScheduler's kind of actor: one small network scores every slot
    from its job's features and the machine's (the same weights for every slot, so what it learns
    about a job holds wherever the job sits in the window); the slots' scores are the logits. The
    critic sees the mean of the slots' embeddings and the machine state."""
    import torch
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    from torch import nn

    class PerJobNetworks(nn.Module):
        def __init__(self, window: int):
            super().__init__()
            self.window = window
            inputs = JOB_FEATURES + MACHINE_FEATURES
            self.embed = nn.Sequential(nn.Linear(inputs, 32), nn.ReLU(), nn.Linear(32, 16), nn.ReLU())
            self.score = nn.Linear(16, 1)
            self.value = nn.Sequential(nn.Linear(16 + MACHINE_FEATURES, 64), nn.ReLU())
            self.latent_dim_pi = window
            self.latent_dim_vf = 64

        def _embeddings(self, observation):
            jobs = observation[:, : self.window * JOB_FEATURES].reshape(-1, self.window, JOB_FEATURES)
            machine = observation[:, self.window * JOB_FEATURES :]
            broadcast = machine.unsqueeze(1).expand(-1, self.window, -1)
            return self.embed(torch.cat([jobs, broadcast], dim=2)), jobs[:, :, 0:1], machine

        def forward_actor(self, observation):
            embeddings, _, _ = self._embeddings(observation)
            return self.score(embeddings).squeeze(2)

        def forward_critic(self, observation):
            embeddings, present, machine = self._embeddings(observation)
            pooled = (embeddings * present).sum(1) / present.sum(1).clamp(min=1.0)
            return self.value(torch.cat([pooled, machine], dim=1))

        def forward(self, observation):
            return self.forward_actor(observation), self.forward_critic(observation)

    class PerJobPolicy(MaskableActorCriticPolicy):
        def _build_mlp_extractor(self) -> None:
            self.mlp_extractor = PerJobNetworks(self.action_space.n)

        def _build(self, lr_schedule) -> None:
            super()._build(lr_schedule)
            self.action_net = nn.Identity()  # the slots' scores are already the logits
            self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)

    return PerJobPolicy


def main() -> None:
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.wrappers import ActionMasker
    from stable_baselines3.common.vec_env import DummyVecEnv, VecNormalize

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=400_000)
    parser.add_argument("--envs", type=int, default=8)
    parser.add_argument("--eval-every", type=int, default=40_960)
    parser.add_argument("--sequences", type=int, default=50)
    parser.add_argument("--backfill", choices=("none", "easy"), default="none")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--final-reward", action="store_true", help="the episode's reward at its end only")
    parser.add_argument("--output", type=Path, default=Path("results/rl_example"))
    args = parser.parse_args()

    workload = lublin_workload(20_000, 256, 7)
    training = workload.take(np.arange(TRAIN_JOBS))
    options = {"sequence_length": 256, "window": 128, "backfill": args.backfill}

    def make_training_env():
        env = JobSelectionEnv(training, dense=not args.final_reward, **options)
        return ActionMasker(env, lambda env: env.unwrapped.action_masks())

    # rewards are bounded slowdowns (tens to thousands): normalised by their running scale
    # the dense rewards add up to the episode's (undiscounted): gamma 1, as RLScheduler trains
    vector = VecNormalize(DummyVecEnv([make_training_env for _ in range(args.envs)]), norm_obs=False, gamma=1.0)
    vector.seed(args.seed)
    model = MaskablePPO(
        per_job_policy(), vector, seed=args.seed, n_steps=1024, batch_size=1024, gamma=1.0, gae_lambda=0.97, verbose=0
    )
    evaluation = JobSelectionEnv(workload, **options)
    starts = held_out_starts(workload, args.sequences, options["sequence_length"])
    reference = baselines(evaluation, starts)
    print(reference)

    def trained(env, obs):
        action, _ = model.predict(obs, deterministic=True, action_masks=env.action_masks())
        return int(action)

    curve = [{"steps": 0, "PPO": mean_avebsld(evaluation, starts, trained)}]
    print(curve[-1])
    while curve[-1]["steps"] < args.steps:
        model.learn(args.eval_every, reset_num_timesteps=False)
        curve.append({"steps": model.num_timesteps, "PPO": mean_avebsld(evaluation, starts, trained)})
        print(curve[-1])
    frame = pd.DataFrame(curve).assign(**reference)
    args.output.mkdir(parents=True, exist_ok=True)
    frame.to_csv(args.output / "learning_curve.csv", index=False)
    figure, axis = plt.subplots(figsize=(5.5, 3.4))
    axis.plot(frame["steps"] / 1000, frame["PPO"], marker="o", label="MaskablePPO (deterministic)")
    labels = {"FCFS": "FCFS (through the env)", "SJF": "SJF (through the env)"}
    for (name, value), style in zip(reference.items(), ("--", ":", "-.")):
        axis.axhline(value, color="black", linestyle=style, label=labels.get(name, name))
    axis.set_xlabel("training steps (thousands of decisions)")
    axis.set_ylabel("mean AVEbsld, held-out sequences")
    axis.set_ylim(bottom=0)
    axis.legend(loc="lower left")
    axis.set_title(f"JobSelection-v0 (backfill {args.backfill}), Lublin model, {args.sequences} held-out sequences")
    save(figure, [args.output / "learning_curve.png"])


if __name__ == "__main__":
    main()
