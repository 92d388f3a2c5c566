"""Mpourloto: the Greek four-player trick-taking game, on the shared game API (see trickroom.games.base)."""

from trickroom.games.mpourloto.game import Mpourloto
from trickroom.games.mpourloto.match import MpourlotoMatch

__all__ = ["Mpourloto", "MpourlotoMatch"]
