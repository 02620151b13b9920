"""A site's association tree (accounts, users, shares) for the Slurm mode's fair share
(docs/slurm_mode.md §3.1), read from what `sshare` or `sacctmgr` print.

    sshare -a -l -P > assoc.txt                                   # the tree by indentation
    sacctmgr -P show assoc tree format=Account,User,Share > assoc.txt
    sacctmgr -P show assoc format=Account,User,ParentName,Share > assoc.txt

Fields are found by the header line's names (any order, any case). The tree comes from the
indentation of `Account` (one space per level, as `sshare` and `sacctmgr ... tree` print it), or
from `ParentName`. `sacctmgr show assoc` without either cannot say which account a sub-account
belongs to and is refused. Shares are `RawShares` (sshare) or `Share` (sacctmgr). Associations are
kept in the file's order, which is the order Fair Tree falls back on between equal siblings.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

SHARE_FIELDS = ("RawShares", "Share")


class AssociationError(ValueError):
    """An association file this reader cannot take, naming the file, the line and what is wrong."""


@dataclass(frozen=True)
class Associations:
    """The tree: association k is `(account[k], user[k])` (user None for an account), its parent
    parent[k] (-1 for the root, index 0) and its RawShares."""

    source: str
    account: tuple
    user: tuple
    parent: tuple
    shares: tuple

    def arrays(self) -> dict:
        """The kernel's `cluster['associations']` (docs/slurm_mode.md §1)."""
        return {"parent": list(self.parent), "shares": list(self.shares), "user": [u is not None for u in self.user]}

    def user_index(self) -> dict:
        """(account, user) -> the index of that user association."""
        return {(a, u): k for k, (a, u) in enumerate(zip(self.account, self.user)) if u is not None}

    def job_associations(self, accounts, users, lines, source: str) -> np.ndarray:
        """The user association of each job (account and user names; `lines` of the jobs in
        `source` for the error naming one that has none)."""
        index = self.user_index()
        found = np.empty(len(accounts), dtype=np.int64)
        for k, key in enumerate(zip(accounts, users)):
            if key not in index:
                raise AssociationError(
                    f"{source}, line {lines[k]}: account {key[0] or '(none)'} and user {key[1] or '(none)'} have no "
                    f"association in {self.source}"
                )
            found[k] = index[key]
        return found


def read_associations(path) -> Associations:
    """The association tree in `path` (module docstring)."""
    path = Path(path)
    lines = path.read_text().splitlines()
    header_at = next((k for k, text in enumerate(lines) if "|" in text), None)
    if header_at is None:
        raise AssociationError(f"{path}: no header line (run sshare or sacctmgr with -P)")
    names = {name.strip().lower(): k for k, name in enumerate(lines[header_at].split("|"))}
    share_field = next((names[f.lower()] for f in SHARE_FIELDS if f.lower() in names), None)
    if "account" not in names or "user" not in names or share_field is None:
        raise AssociationError(
            f"{path}, line {header_at + 1}: the header needs Account, User and RawShares (or Share); "
            f"got {lines[header_at]}"
        )
    parent_field = names.get("parentname")
    partition_field = names.get("partition")
    rows = []
    for number, text in enumerate(lines[header_at + 1 :], start=header_at + 2):
        if not text.strip():
            continue
        values = text.split("|")
        if len(values) < len(names):
            raise AssociationError(f"{path}, line {number}: {len(values)} fields where the header has {len(names)}")
        if partition_field is not None and values[partition_field].strip():
            raise AssociationError(f"{path}, line {number}: per-partition associations are not modelled")
        rows.append((number, values))
    if not rows:
        raise AssociationError(f"{path}: no association")
    indented = any(values[names["account"]].startswith(" ") for _, values in rows)
    if parent_field is None and not indented and len({values[names["account"]] for _, values in rows}) > 1:
        raise AssociationError(
            f"{path}: neither indentation nor ParentName says which account each account belongs to "
            "(use `sshare -a -l -P`, `sacctmgr -P show assoc tree` or add ParentName to the format)"
        )
    account, user, parent, shares = [], [], [], []
    last_account_at_depth: dict[int, int] = {}
    account_index: dict[str, int] = {}
    for number, values in rows:
        raw_account = values[names["account"]]
        name = raw_account.strip()
        depth = len(raw_account) - len(raw_account.lstrip(" "))
        user_name = values[names["user"]].strip() or None
        k = len(account)
        if k == 0:
            if user_name is not None or name != "root":
                raise AssociationError(f"{path}, line {number}: the first association must be the account root")
            up = -1
        elif parent_field is not None:
            owner = name if user_name is not None else values[parent_field].strip()
            if owner not in account_index:
                raise AssociationError(f"{path}, line {number}: account {owner!r} is not listed before it")
            up = account_index[owner]
        else:
            up = last_account_at_depth.get(depth - 1, 0) if indented else account_index.get(name, 0)
            if user_name is None and not indented:
                up = 0
            if user_name is not None and account[up] != name:
                raise AssociationError(f"{path}, line {number}: user {user_name} of account {name} is not under it")
        text = values[share_field].strip()
        if k > 0 and text.lower() == "parent":
            raise AssociationError(f"{path}, line {number}: FairShare=parent is not modelled")
        if k > 0 and not text.isdigit():
            raise AssociationError(f"{path}, line {number}: shares {text!r} (need a whole number)")
        if user_name is None:
            if name in account_index and k > 0:
                raise AssociationError(f"{path}, line {number}: account {name} is listed twice")
            account_index[name] = k
            last_account_at_depth[depth] = k
        account.append(name)
        user.append(user_name)
        parent.append(up)
        shares.append(int(text) if k > 0 else 1)
    return Associations(str(path), tuple(account), tuple(user), tuple(parent), tuple(shares))
