from app.db import find_user
from app.models import User


def login(user_id: str) -> User:
    user = find_user(user_id)
    if user is None:
        raise KeyError(user_id)
    return user
