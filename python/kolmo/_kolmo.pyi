"""Type stubs of kolmo's extension module (the Rust engine's bindings); use the `kolmo` package."""
from typing import List, Optional, Tuple

import numpy as np
import numpy.typing as npt

__version__: str
DEFAULT_MAX_STATES: int

class InputError(ValueError):
    """The input is not a valid model or argument; the message names the place."""

class NotCertified(RuntimeError):
    """The engine could not certify an answer; no number is returned."""

class _Chain:
    @staticmethod
    def from_coo(
        n: int,
        rows: npt.NDArray[np.int64],
        cols: npt.NDArray[np.int64],
        probs: npt.NDArray[np.float64],
        exact: Optional[List[str]] = None,
    ) -> "_Chain": ...
    @property
    def n(self) -> int: ...
    def absorbing(self, target: List[int], variance: bool = True) -> dict: ...
    def absorbing_exact(self, target: List[int]) -> Tuple[List[Optional[str]], List[Optional[str]]]: ...
    def fundamental(self, target: List[int]) -> dict: ...
    def distribution_after(self, k: int, initial: npt.NDArray[np.float64]) -> dict: ...
    def first_passage(self) -> dict: ...
    def stationary(self) -> dict: ...
    def stationary_exact(self) -> List[str]: ...
    def distribution_after_exact(self, k: int, start: int) -> List[str]: ...
    def expected_reward(
        self, target: List[int], rewards: npt.NDArray[np.float64], exact: bool = False, texts: Optional[List[str]] = None
    ) -> Tuple[npt.NDArray[np.float64], float, Optional[List[Optional[str]]]]: ...
    def long_run_reward(
        self, rewards: npt.NDArray[np.float64]
    ) -> List[Tuple[List[int], float, float, npt.NDArray[np.float64], float]]: ...
    def classes(self) -> List[Tuple[List[int], bool, Optional[int]]]: ...

class _Mdp:
    @staticmethod
    def from_choices(
        choice_ptr: npt.NDArray[np.int64],
        choice: npt.NDArray[np.int64],
        cols: npt.NDArray[np.int64],
        probs: npt.NDArray[np.float64],
        rewards: npt.NDArray[np.float64],
        exact: Optional[List[str]] = None,
        exact_rewards: Optional[List[str]] = None,
    ) -> "_Mdp": ...
    @property
    def n(self) -> int: ...
    @property
    def choice_ptr(self) -> npt.NDArray[np.int64]: ...
    def solve(
        self,
        objective: str,
        discount: Optional[str] = None,
        minimize: bool = False,
        target: Optional[List[int]] = None,
        maximiser: Optional[List[bool]] = None,
        steps: Optional[int] = None,
        exact: bool = False,
    ) -> dict: ...

def check(
    model: str, properties: List[Tuple[str, str]], constants: str = "", exact: bool = False, max_states: int = ...
) -> Tuple[str, List[float]]: ...

def read(path: str, reward: Optional[str] = None) -> Tuple[str, object, List[str], List[Tuple[str, List[int]]]]: ...

class _Board:
    def __init__(
        self,
        size: int = 100,
        start: int = 0,
        faces: int = 6,
        weights: Optional[List[float]] = None,
        rule: str = "clamp",
        portals: List[Tuple[str, int, int]] = ...,
        classic: bool = False,
    ) -> None: ...
    def analyze(self, players: int = 1) -> dict: ...

def cards_value(rounds: int, alice: str = "RPS", bob: str = "RPS") -> Tuple[float, float, float]: ...

# The figures of kolmo snakes (kolmo-plot): each one's description as plain data, or drawn as SVG.
def snakes_board_figure(board: _Board) -> dict: ...
def snakes_board_svg(board: _Board) -> str: ...
def snakes_length_figure(board: _Board, players: int = 1, quantiles: Optional[List[float]] = None) -> dict: ...
def snakes_length_svg(board: _Board, players: int = 1, quantiles: Optional[List[float]] = None) -> str: ...
