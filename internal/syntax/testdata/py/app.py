"""A small web service."""
from __future__ import annotations

import os
import os.path as osp, sys
from typing import Protocol, TypeAlias
from .models import User, Order as PurchaseOrder
from enum import Enum
import functools

__all__ = ["create_app", "Service", "Color"]

DEBUG = os.environ.get("DEBUG") == "1"
_cache: dict[str, str] = {}
UserId: TypeAlias = int
Pair, Other = 1, 2
type Vector = list[float]


class Color(Enum):
    RED = 1
    GREEN = 2


class Repo(Protocol):
    def get(self, key: str) -> str: ...


class Service:
    """Business logic."""

    default_timeout = 30

    def __init__(self, repo: Repo) -> None:
        self.repo = repo

    @staticmethod
    def version() -> str:
        return "1.0"

    @property
    def name(self) -> str:
        return self.repo.get("name")

    @functools.lru_cache(maxsize=128)
    async def fetch(self, key: str,
                    timeout: float = 1.0) -> str:
        def helper(x):
            return x.strip()
        return helper(await self.repo.get(key))

    class Config:
        def load(self):
            return {}


async def main() -> None:
    service = Service(repo=None)
    print(await service.fetch("a"))


@app.route("/health")
def health():
    return {"ok": True}


def create_app(config=None):
    def make_handler(name):
        async def handler(request):
            return name
        return handler
    return make_handler("x")
