import json

VERSION = "2"
_private = 1


def public():
    return json.dumps({})


def _hidden():
    pass


class Model:
    pass
