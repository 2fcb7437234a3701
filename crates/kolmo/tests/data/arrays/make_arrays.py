"""Writes the .npy fixtures of tests/arrays.rs (run from this directory with numpy, mdptoolbox and
quantecon installed). Each fixture is checked here against the library it imitates."""
import os

import mdptoolbox.example
import mdptoolbox.mdp
import numpy as np
import quantecon as qe

# MDPToolbox's forest example (S = 3, r1 = 4, r2 = 2, p = 0.1): P is (A, S, S), R is (S, A).
P, R = mdptoolbox.example.forest(S=3, r1=4, r2=2, p=0.1)
assert P.shape == (2, 3, 3) and R.shape == (3, 2) and P.dtype == R.dtype == np.float64
pi = mdptoolbox.mdp.PolicyIteration(P, R, 0.9)
pi.run()
assert np.allclose(pi.V, (26.244, 29.484, 33.484)) and pi.policy == (0, 0, 0)
np.save("forest.P.npy", P)
np.save("forest.R.npy", R)

# The same arrays stored column-major (the header says 'fortran_order': True).
os.makedirs("fortran", exist_ok=True)
np.save("fortran/P.npy", np.asfortranarray(P))
np.save("fortran/R.npy", np.asfortranarray(R))

# QuantEcon's layout, Q (S, A, S), with cutting (action 1) infeasible in state 0: R = -inf there,
# and its row of Q left at zeros (DiscreteDP does not read it either).
Q = np.transpose(P, (1, 0, 2)).copy()
Rq = R.copy()
Rq[0, 1] = -np.inf
Q[0, 1, :] = 0.0
res = qe.markov.DiscreteDP(Rq, Q, 0.9).solve(method="policy_iteration")
assert np.allclose(res.v, (26.244, 29.484, 33.484)) and tuple(res.sigma) == (0, 0, 0)
np.save("quantecon.Q.npy", Q)
np.save("quantecon.R.npy", Rq)

# A reward array of 64-bit integers, which the reader refuses.
np.save("int64.R.npy", np.array([[0, 0], [0, 1], [4, 2]], dtype=np.int64))
np.save("int64.P.npy", P)
