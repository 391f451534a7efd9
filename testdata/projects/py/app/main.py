from app.auth import login
from app.db import save_user
from app.models import User

save_user(User(id="u1", name="Ada", email="ada@example.com"))
print(login("u1").name)
