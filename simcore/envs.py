"""The project's Gymnasium environments: importing this module registers them (docs/environments.md).

import gymnasium
import simcore.envs

env = gymnasium.make("schedsweep/CoScheduling-v0")
"""

import gymnasium

ENVIRONMENTS = {
    "schedsweep/CoScheduling-v0": "simcore.studies.coscheduling.env:CoSchedulingEnv",
    "schedsweep/GridScheduling-v1": "simcore.studies.elastic.env:SchedulingEnv",
    "schedsweep/ElasticProvisioning-v1": "simcore.studies.elastic.env:ElasticEnv",
    "schedsweep/JobSelection-v0": "simcore.studies.job_selection.env:JobSelectionEnv",
}

# native vector envs: gymnasium.make_vec(id, num_envs=N, vectorization_mode="vector_entry_point")
VECTOR_ENVIRONMENTS = {
    "schedsweep/JobSelection-v0": "simcore.studies.job_selection.vector:JobSelectionVectorEnv",
}

for env_id, entry_point in ENVIRONMENTS.items():
    # a second import (a reload, or a worker that imported it already) must not re-register
    if env_id not in gymnasium.registry:
        gymnasium.register(id=env_id, entry_point=entry_point, vector_entry_point=VECTOR_ENVIRONMENTS.get(env_id))
