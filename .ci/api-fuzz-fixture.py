"""Sets up the fuzz server for .ci/api-fuzz: accounts, and games in the
states the `{id}` operations act on. Writes their ids as dictionaries
(`games.dict`, `proposals.dict`) beside the run's config and prints the
fuzzer's access token."""

import json
import sys
import urllib.request

base, work = sys.argv[1], sys.argv[2]


def call(method, path, body=None, token=None):
    request = urllib.request.Request(base + path, method=method)
    request.add_header("content-type", "application/json")
    if token:
        request.add_header("authorization", f"Bearer {token}")
    data = json.dumps(body).encode() if body is not None else None
    with urllib.request.urlopen(request, data) as response:
        return json.load(response)


passwords = {
    "fuzzer": "tangerine quokka 47 umbrella",
    "alice": "correct horse battery staple",
    "bob": "plum orchard lantern 9",
}
tokens = {}
for name, password in passwords.items():
    call("POST", "/api/v1/accounts", {"username": name, "email": f"{name}@example.org", "password": password})
    tokens[name] = call("POST", "/api/v1/auth/token", {"username": name, "password": password})["access_token"]

games, proposal_games, proposals = [], [], []
# Active games with the fuzzer first to move; in the first, proposals to
# and from the fuzzer; in the next four, a draw offer to it. Every other one
# has a clock, to give time to.
for n in range(12):
    body = {"seat": "first", "invite": ["alice", "bob"]}
    if n % 2:
        body["days_per_move"] = 3
    game = call("POST", "/api/v1/games", body, tokens["fuzzer"])
    for name in ("alice", "bob"):
        call("POST", f"/api/v1/games/{game['id']}/join", None, tokens[name])
    games.append(game["id"])
    if n == 0:
        proposal_games.append(game["id"])
        for who, to in (("alice", "first"), ("fuzzer", "last")):
            made = call("POST", f"/api/v1/games/{game['id']}/alliance/proposals", {"to": to}, tokens[who])
            proposals.append(made["id"])
    elif n < 5:
        # A draw offer from Alice for the fuzzer to answer.
        call("POST", f"/api/v1/games/{game['id']}/draw/offer", None, tokens["alice"])
# Open games that invite the fuzzer, and one it created.
for _ in range(2):
    game = call("POST", "/api/v1/games", {"seat": "first", "invite": ["fuzzer"], "open_seats": 1}, tokens["alice"])
    games.append(game["id"])
games.append(call("POST", "/api/v1/games", {"open_seats": 2}, tokens["fuzzer"])["id"])

for name, ids in (("games", games), ("proposal-games", proposal_games), ("proposals", proposals)):
    with open(f"{work}/{name}.dict", "w") as out:
        out.writelines(f'"{id}"\n' for id in ids)
print(tokens["fuzzer"])
