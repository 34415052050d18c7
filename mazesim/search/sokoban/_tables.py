"""numba kernels of the push search's bookkeeping: the node store, its hash table and the heap.

A node is one state (sorted boxes, canonical player cell) with its parent, costs and the move
that made it. The store grows by doubling; `Nodes` is rebuilt around the grown arrays (numba
cannot cache jitclasses, so the store is a namedtuple of arrays).
"""

from collections import namedtuple

import numpy as np
from numba import njit

__all__ = ["Nodes", "COUNT", "QUEUED", "NODE_MASK", "TIE_CAP", "new_nodes", "grown", "is_full",
           "find_slot", "add_node", "queue", "take"]

Nodes = namedtuple("Nodes", ["pool", "players", "parent", "gcost", "hcost", "moved", "keys",
                             "closed", "table", "heap", "sizes"])
"""``pool`` (cap, k) int16 sorted boxes; ``players`` canonical player cells; ``parent`` node or
-1; ``gcost``/``hcost`` moves so far and lower bound; ``moved`` (cap, 2) the (box cell, direction)
that made the node; ``keys`` Zobrist keys; ``closed`` expanded flags; ``table`` open-addressing
hash of the keys (twice the capacity); ``heap`` the priority queue of `heap_item` entries;
``sizes`` [nodes stored, heap entries]."""
COUNT, QUEUED = 0, 1
"""Slots of ``Nodes.sizes``."""
NODE_MASK = (1 << 31) - 1
"""The node number in a heap entry (its low 31 bits)."""
_TIE_BITS = 12
TIE_CAP = (1 << _TIE_BITS) - 1
"""Largest tie-break value of a heap entry (12 bits between the priority and the node)."""
_PRIORITY_SHIFT = 31 + _TIE_BITS


@njit(cache=True)
def new_nodes(cap, k):
    """An empty store for `cap` nodes of `k` boxes."""
    return Nodes(np.empty((cap, k), np.int16), np.empty(cap, np.int32), np.empty(cap, np.int32),
                 np.empty(cap, np.int32), np.empty(cap, np.int32), np.empty((cap, 2), np.int16),
                 np.empty(cap, np.int64), np.zeros(cap, np.uint8), np.full(2 * cap, -1, np.int32),
                 np.empty(cap, np.int64), np.zeros(2, np.int64))


@njit(cache=True, inline="always")
def is_full(nodes):
    return nodes.sizes[COUNT] == len(nodes.keys)


@njit(cache=True)
def grown(nodes):
    """The store with twice the capacity (the hash table rebuilt); slots found before are stale."""
    cap = 2 * len(nodes.keys)
    count = nodes.sizes[COUNT]
    keys, closed = _grow(nodes.keys, cap), _grow(nodes.closed, cap)
    closed[count:] = 0
    return Nodes(_grow(nodes.pool, cap), _grow(nodes.players, cap), _grow(nodes.parent, cap),
                 _grow(nodes.gcost, cap), _grow(nodes.hcost, cap), _grow(nodes.moved, cap), keys,
                 closed, _rehash(2 * cap, keys, count), nodes.heap, nodes.sizes)


@njit(cache=True, inline="always")
def find_slot(nodes, key, boxes, player):
    """Slot of the state (boxes, player) in the hash table: its node or -1 there."""
    table = nodes.table
    mask = len(table) - 1
    slot = key & mask
    while table[slot] >= 0:
        node = table[slot]
        if nodes.keys[node] == key and nodes.players[node] == player and \
                _same(nodes.pool[node], boxes):
            return slot
        slot = (slot + 1) & mask
    return slot


@njit(cache=True, inline="always")
def add_node(nodes, slot, boxes, player, key, parent, g, h, box, move):
    """Store a new node at hash `slot` (the store must not be full); returns its number."""
    node = nodes.sizes[COUNT]
    nodes.sizes[COUNT] += 1
    nodes.pool[node], nodes.players[node], nodes.keys[node] = boxes, player, key
    nodes.parent[node], nodes.gcost[node], nodes.hcost[node] = parent, g, h
    nodes.moved[node, 0], nodes.moved[node, 1] = box, move
    nodes.table[slot] = node
    return node


@njit(cache=True, inline="always")
def queue(nodes, priority, tie, node):
    """Put `node` on the heap by (priority, tie, node); returns the store (its heap may grow)."""
    size = nodes.sizes[QUEUED]
    heap = nodes.heap
    if size == len(heap):
        heap = _grow(heap, 2 * size)
    nodes.sizes[QUEUED] += 1
    heap[size] = (priority << _PRIORITY_SHIFT) | (min(tie, TIE_CAP) << 31) | node
    i = size
    while i > 0:
        up = (i - 1) >> 1
        if heap[up] <= heap[i]:
            break
        heap[up], heap[i] = heap[i], heap[up]
        i = up
    if len(heap) == len(nodes.heap):
        return nodes
    return Nodes(nodes.pool, nodes.players, nodes.parent, nodes.gcost, nodes.hcost, nodes.moved,
                 nodes.keys, nodes.closed, nodes.table, heap, nodes.sizes)


@njit(cache=True, inline="always")
def take(nodes):
    """Remove the smallest heap entry; returns its node."""
    heap = nodes.heap
    top = heap[0]
    nodes.sizes[QUEUED] -= 1
    size = nodes.sizes[QUEUED]
    heap[0] = heap[size]
    i = 0
    while True:
        left = 2 * i + 1
        if left >= size:
            break
        small = left
        if left + 1 < size and heap[left + 1] < heap[left]:
            small = left + 1
        if heap[i] <= heap[small]:
            break
        heap[i], heap[small] = heap[small], heap[i]
        i = small
    return top & NODE_MASK


@njit(cache=True)
def _grow(array, rows):
    bigger = np.empty((rows,) + array.shape[1:], array.dtype)
    bigger[:len(array)] = array
    return bigger


@njit(cache=True)
def _same(a, b):
    for i in range(len(a)):
        if a[i] != b[i]:
            return False
    return True


@njit(cache=True)
def _rehash(table_size, keys, count):
    table = np.full(table_size, -1, np.int32)
    mask = table_size - 1
    for node in range(count):
        slot = keys[node] & mask
        while table[slot] >= 0:
            slot = (slot + 1) & mask
        table[slot] = node
    return table
