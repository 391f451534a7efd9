from app.models import Order, User

_users: dict[str, User] = {}
_orders: list[Order] = []


def save_user(user: User) -> None:
    _users[user.id] = user


def find_user(user_id: str) -> User | None:
    return _users.get(user_id)
