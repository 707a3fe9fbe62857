#!/usr/bin/env python3
"""tools/e2craft.py - ext2 images for the tests, damaged on purpose.

A clean image is made by mke2fs -d from a small tree; each corruption is
one named change to it, made by this file's own reading of the on-disk
format (superblock, group descriptors, inodes, directory entries, block
maps: the ext2 specification by Dave Poirier). The guest test e2bad.c
knows what each damaged image must do to the kernel.

  e2craft.py list              the corruptions, one per line: NAME  what it does
  e2craft.py make NAME OUT     a clean image with corruption NAME applied
  e2craft.py all DIR           every corruption, as DIR/NAME.img
  e2craft.py base OUT          the ext2 fuzzer's small base image (/etc/fuzz.ext2)
  e2craft.py harm NAME BEFORE AFTER
                               what a guest changed in image NAME that it had no
                               right to (exit 1 if anything)

Names starting with healthy_ are undamaged variants of the geometry
(block sizes, revision 0, many groups...): the guest writes to them, and
the host's e2fsck -fn must find them clean afterwards."""
import os
import struct
import subprocess
import sys
import tempfile

SBIN_PATH = os.environ.get("PATH", "") + ":/sbin:/usr/sbin"
FAKE_TIME = "1700000000"                # reproducible images

# Superblock fields: (offset, struct format).
SB = {
    "inodes_count": (0, "I"), "blocks_count": (4, "I"), "free_blocks_count": (12, "I"),
    "free_inodes_count": (16, "I"), "first_data_block": (20, "I"), "log_block_size": (24, "I"),
    "blocks_per_group": (32, "I"), "inodes_per_group": (40, "I"), "magic": (56, "H"),
    "rev_level": (76, "I"), "first_ino": (84, "I"), "inode_size": (88, "H"),
    "feature_compat": (92, "I"), "feature_incompat": (96, "I"),
    "feature_ro_compat": (100, "I"), "reserved_gdt_blocks": (206, "H"),
}
# Group descriptor fields (32 bytes each).
GD = {"block_bitmap": (0, "I"), "inode_bitmap": (4, "I"), "inode_table": (8, "I"),
      "free_blocks_count": (12, "H"), "free_inodes_count": (14, "H")}
# Inode fields; block[] is handled apart (i_block at 40, 15 words).
INODE = {"mode": (0, "H"), "size": (4, "I"), "dtime": (20, "I"), "links_count": (26, "H"),
         "blocks": (28, "I"), "flags": (32, "I"), "file_acl": (104, "I"), "size_high": (108, "I")}
NDIR, IND, DIND, TIND = 12, 12, 13, 14


def e2tool(*args, **kw):
    env = dict(os.environ, PATH=SBIN_PATH, E2FSPROGS_FAKE_TIME=FAKE_TIME)
    return subprocess.run(list(args), capture_output=True, env=env, timeout=120, **kw)


def mkfs(image, size_kb, tree, *options):
    """mke2fs -d tree into a new file of size_kb KiB, the same bytes every
    time (fixed UUID, hash seed, clock, and the tree's times)."""
    for top, dirs, files in os.walk(tree):
        for name in dirs + files:
            os.utime(os.path.join(top, name), (int(FAKE_TIME), int(FAKE_TIME)),
                     follow_symlinks=False)
    os.utime(tree, (int(FAKE_TIME), int(FAKE_TIME)))
    open(image, "wb").close()
    r = e2tool("mke2fs", "-q", "-F", "-t", "ext2", "-U", "12345678-1234-1234-1234-123456789abc",
               "-E", "hash_seed=12345678-1234-1234-1234-123456789abc", *options,
               "-d", tree, image, "%dK" % size_kb)
    if r.returncode != 0:
        raise RuntimeError("mke2fs: " + r.stderr.decode())
    img = Image(open(image, "rb").read())
    for ino in range(1, img.sb("inodes_count") + 1):
        if img.inode(ino, "mode"):      # mke2fs -d copies st_ctime, which utime can't set
            off = img.inode_off(ino)
            struct.pack_into("<II", img.d, off + 8, int(FAKE_TIME), int(FAKE_TIME))
    with open(image, "wb") as f:
        f.write(img.d)


class Image:
    """An ext2 image in memory, read and changed field by field."""

    def __init__(self, data):
        self.d = bytearray(data)
        self.bsize = 1024 << self.sb("log_block_size")
        self.ngroups = -(-(self.sb("blocks_count") - self.sb("first_data_block")) //
                         self.sb("blocks_per_group"))
        self.isize = self.sb("inode_size") if self.sb("rev_level") else 128

    def _get(self, off, fmt):
        return struct.unpack_from("<" + fmt, self.d, off)[0]

    def _put(self, off, fmt, value):
        struct.pack_into("<" + fmt, self.d, off, value)

    def sb(self, name, value=None):
        off, fmt = SB[name]
        if value is None:
            return self._get(1024 + off, fmt)
        self._put(1024 + off, fmt, value)

    def gd_off(self, g):
        return (self.sb("first_data_block") + 1) * self.bsize + 32 * g

    def gd(self, g, name, value=None):
        off, fmt = GD[name]
        if value is None:
            return self._get(self.gd_off(g) + off, fmt)
        self._put(self.gd_off(g) + off, fmt, value)

    def inode_off(self, ino):
        ipg = self.sb("inodes_per_group")
        return (self.gd((ino - 1) // ipg, "inode_table") * self.bsize +
                (ino - 1) % ipg * self.isize)

    def inode(self, ino, name, value=None):
        off, fmt = INODE[name]
        if value is None:
            return self._get(self.inode_off(ino) + off, fmt)
        self._put(self.inode_off(ino) + off, fmt, value)

    def iblock(self, ino, i, value=None):
        off = self.inode_off(ino) + 40 + 4 * i
        if value is None:
            return self._get(off, "I")
        self._put(off, "I", value)

    def block(self, b):
        return self.d[b * self.bsize:(b + 1) * self.bsize]

    def put_block(self, b, data):
        assert len(data) == self.bsize
        self.d[b * self.bsize:(b + 1) * self.bsize] = data

    def words(self, b):
        return list(struct.unpack("<%dI" % (self.bsize // 4), self.block(b)))

    def put_words(self, b, words):
        self.put_block(b, struct.pack("<%dI" % (self.bsize // 4), *words))

    def file_blocks(self, ino, indirect=False):
        """The data blocks of inode ino, in file order (holes left out);
        with indirect, its indirect blocks too, each before what it maps."""
        out = []

        def walk(b, level):
            if not b:
                return
            if level == 0 or indirect:
                out.append(b)
            for w in self.words(b) if level else ():
                walk(w, level - 1)
        for i in range(NDIR):
            walk(self.iblock(ino, i), 0)
        for level, slot in ((1, IND), (2, DIND), (3, TIND)):
            walk(self.iblock(ino, slot), level)
        return out

    def entries(self, ino):
        """Directory entries of ino: (block, offset, inode, rec_len, name_len, name)."""
        out = []
        for b in self.file_blocks(ino):
            data, off = self.block(b), 0
            while off + 8 <= self.bsize:
                inode, rec_len, name_len = struct.unpack_from("<IHB", data, off)
                name = bytes(data[off + 8:off + 8 + name_len])
                out.append((b, off, inode, rec_len, name_len, name))
                if rec_len < 8:
                    break
                off += rec_len
        return out

    def lookup(self, path):
        ino = 2
        for part in path.strip("/").split("/"):
            if not part:
                continue
            for _, _, i, _, _, name in self.entries(ino):
                if i and name == part.encode():
                    ino = i
                    break
            else:
                raise KeyError(path)
        return ino

    def bitmap_bit(self, bitmap_block, bit, value=None):
        off = bitmap_block * self.bsize + bit // 8
        if value is None:
            return self.d[off] >> (bit % 8) & 1
        if value:
            self.d[off] |= 1 << (bit % 8)
        else:
            self.d[off] &= ~(1 << (bit % 8)) & 0xFF

    def alloc_block(self):
        """Take the first free block of group 0, with honest counts."""
        bb, first = self.gd(0, "block_bitmap"), self.sb("first_data_block")
        for bit in range(self.sb("blocks_per_group")):
            if not self.bitmap_bit(bb, bit):
                self.bitmap_bit(bb, bit, 1)
                self.gd(0, "free_blocks_count", self.gd(0, "free_blocks_count") - 1)
                self.sb("free_blocks_count", self.sb("free_blocks_count") - 1)
                return first + bit
        raise RuntimeError("no free block")

    def inode_table_block_of(self, ino):
        return self.inode_off(ino) // self.bsize


# ---------------------------------------------------------------- the clean images
def victim_tree(root):
    """What every damaged image holds (e2bad.c knows these names)."""
    def put(rel, data):
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
    put("hello.txt", b"hello, world\n")
    put("healthy.txt", bytes((i * 7 + 3) & 0xFF for i in range(3000)))
    put("evil.txt", b"evil\n")
    put("big", bytes((i * 13) & 0xFF for i in range(20 * 1024)))
    for name in ("a", "b", "c"):
        put("dir/" + name, name.encode() * 10)
    put("sub/deeper/file", b"deep\n")


def clean_image(size_kb=256, *options):
    with tempfile.TemporaryDirectory() as tmp:
        tree, image = os.path.join(tmp, "tree"), os.path.join(tmp, "img")
        victim_tree(tree)
        mkfs(image, size_kb, tree, "-b", "1024", "-N", "64", "-I", "128", *options)
        return Image(open(image, "rb").read())


# ---------------------------------------------------------------- corruptions
def short_last_dirent(img):
    """/dir's only block rebuilt full: ".", "..", 49 names of exactly 20
    bytes, an 8-byte unused entry, and last an entry with rec_len 11 and
    name_len 3 that ends a byte before the block: a create must not put its
    name after it (past the block buffer)."""
    d = img.lookup("/dir")
    blk = img.file_blocks(d)[0]
    hello = img.lookup("/hello.txt")
    out = bytearray()
    out += struct.pack("<IHBB", d, 12, 1, 2) + b".\0\0\0"
    out += struct.pack("<IHBB", 2, 12, 2, 2) + b"..\0\0"
    for i in range(49):
        out += struct.pack("<IHBB", hello, 20, 12, 1) + b"e%011d" % i
    out += struct.pack("<IHBB", 0, 8, 0, 0)
    out += struct.pack("<IHBB", hello, 11, 3, 1) + b"ccc"
    out += bytes(img.bsize - len(out))
    img.put_block(blk, out)
    img.inode(hello, "links_count", 50)


def dirent_reserved_inode(img):
    """/dir/a's entry names inode 7 (the resize inode), which no name may reach."""
    d = img.lookup("/dir")
    for b, off, ino, _, _, name in img.entries(d):
        if name == b"a":
            struct.pack_into("<I", img.d, b * img.bsize + off, 7)
            return
    raise KeyError("a")


def dirent_inode_out_of_range(img):
    """/dir/b's entry names inode 0x7fffffff."""
    d = img.lookup("/dir")
    for b, off, ino, _, _, name in img.entries(d):
        if name == b"b":
            struct.pack_into("<I", img.d, b * img.bsize + off, 0x7FFFFFFF)
            return
    raise KeyError("b")


def blocks_per_group_huge(img):
    """s_blocks_per_group 0x7fffffff and a blocks count to match (one group);
    /hello.txt's block 0x7fffff00, whose bitmap bit lies 256 MiB past a
    one-block buffer."""
    img.sb("blocks_per_group", 0x7FFFFFFF)
    img.sb("blocks_count", 0x7FFFFFF0)
    img.iblock(img.lookup("/hello.txt"), 0, 0x7FFFFF00)


def inodes_per_group_huge(img):
    """s_inodes_per_group 0x7fffffff (and the inode count with it)."""
    img.sb("inodes_per_group", 0x7FFFFFFF)
    img.sb("inodes_count", 0x7FFFFFFF)


def inode_table_wraps(img):
    """Group 0's inode table 2^32 bytes further: the byte offset wraps back
    onto the real table in 32-bit arithmetic."""
    img.gd(0, "inode_table", img.gd(0, "inode_table") + (1 << 32) // img.bsize)


def block_bitmap_on_superblock(img):
    """Group 0's block bitmap is the superblock: allocating would flip its bits."""
    img.gd(0, "block_bitmap", img.sb("first_data_block"))


def inode_table_on_bitmap(img):
    """Group 0's inode table starts on its own block bitmap."""
    img.gd(0, "inode_table", img.gd(0, "block_bitmap"))


def blocks_count_past_image(img):
    """The superblock claims four times the blocks the image has."""
    img.sb("blocks_count", img.sb("blocks_count") * 4)


def revision_unknown(img):
    """s_rev_level 7: a format this kernel does not know."""
    img.sb("rev_level", 7)


def groups_over_65536(img):
    """8 blocks per group and 65537 groups (1 inode each): more group
    descriptors than Orthos bounds (and the image is far too short)."""
    img.sb("blocks_per_group", 8)
    img.sb("blocks_count", 1 + 8 * 65537)
    img.sb("inodes_per_group", 1)


def tind_self_loop(img):
    """/big's triple-indirect block points at itself in every slot: freeing
    it naively walks 256^3 entries."""
    ino = img.lookup("/big")
    x = img.alloc_block()
    img.put_words(x, [x] * (img.bsize // 4))
    img.iblock(ino, TIND, x)
    img.inode(ino, "blocks", img.inode(ino, "blocks") + img.bsize // 512)


def dir_huge_size(img):
    """/dir claims i_size 0xfffffc00; its indirect trees all lead back to its
    one real block, so a naive scan reads it 16 million times."""
    d = img.lookup("/dir")
    real = img.iblock(d, 0)
    ind, dind, tind = img.alloc_block(), img.alloc_block(), img.alloc_block()
    img.put_words(ind, [real] * (img.bsize // 4))
    img.put_words(dind, [ind] * (img.bsize // 4))
    img.put_words(tind, [dind] * (img.bsize // 4))
    for i in range(1, NDIR):
        img.iblock(d, i, real)
    img.iblock(d, IND, ind)
    img.iblock(d, DIND, dind)
    img.iblock(d, TIND, tind)
    img.inode(d, "size", 0xFFFFFC00)
    img.inode(d, "blocks", 0xFFFFFFFF)


def block_twice_in_file(img):
    """/hello.txt's second block pointer repeats its first: unlinking frees
    that block twice."""
    ino = img.lookup("/hello.txt")
    img.iblock(ino, 1, img.iblock(ino, 0))
    img.inode(ino, "size", 2 * img.bsize)
    img.inode(ino, "blocks", img.inode(ino, "blocks") + img.bsize // 512)


def pointer_into_inode_table(img):
    """/evil.txt's block is the inode-table block holding /healthy.txt's
    inode: freeing it would hand the table out as file data."""
    ino = img.lookup("/evil.txt")
    img.iblock(ino, 0, img.inode_table_block_of(img.lookup("/healthy.txt")))


def inode_freed_already(img):
    """/hello.txt's inode bitmap bit is clear: unlinking frees it twice."""
    ino = img.lookup("/hello.txt")
    ipg = img.sb("inodes_per_group")
    img.bitmap_bit(img.gd((ino - 1) // ipg, "inode_bitmap"), (ino - 1) % ipg, 0)


def file_without_links(img):
    """/hello.txt has i_links_count 0 (yet a name)."""
    img.inode(img.lookup("/hello.txt"), "links_count", 0)


def ro_compat_unknown_root_without_links(img):
    """An unknown ro_compat feature (read-only mount) and a root inode with
    i_links_count 0."""
    img.sb("feature_ro_compat", img.sb("feature_ro_compat") | 0x8000)
    img.inode(2, "links_count", 0)


def pointer_past_end(img):
    """/evil.txt's block pointer is 10 past the last block."""
    img.iblock(img.lookup("/evil.txt"), 0, img.sb("blocks_count") + 10)


def ro_compat_unknown(img):
    """An unknown ro_compat feature, otherwise healthy: mounts read-only."""
    img.sb("feature_ro_compat", img.sb("feature_ro_compat") | 0x8000)


# ---------------------------------------------------------------- attacks: consistent but evil
# Images that pass every check of the mount and of a first look, built to
# make a write go where it must not. e2bad.c drives each through the
# guest; tools/test.py then compares the image before and after (harm()).
def target_in_evil(img, b):
    """/evil.txt's text becomes "TARGET n": the block the guest aims at."""
    ino = img.lookup("/evil.txt")
    text = b"TARGET %d\n" % b
    img.put_block(img.iblock(ino, 0), text + bytes(img.bsize - len(text)))
    img.inode(ino, "size", len(text))


def ind_self_loop(img):
    """/big's indirect block names itself in its first slot: file block 12
    is the block map, and what a write puts there is the map for blocks
    13 on (the guest writes healthy.txt's block number, then block 13)."""
    ino = img.lookup("/big")
    ind = img.iblock(ino, IND)
    img.put_words(ind, [ind] + img.words(ind)[1:])
    target_in_evil(img, img.iblock(img.lookup("/healthy.txt"), 0))


def dind_self_loop(img):
    """/big gets a double-indirect block whose first slot names itself, and
    a size (300 KiB, a hole between) that reaches it: file block 268 is
    that block."""
    ino = img.lookup("/big")
    x = img.alloc_block()
    img.put_words(x, [x] + [0] * (img.bsize // 4 - 1))
    img.iblock(ino, DIND, x)
    img.inode(ino, "blocks", img.inode(ino, "blocks") + img.bsize // 512)
    img.inode(ino, "size", 300 * 1024)
    target_in_evil(img, img.iblock(img.lookup("/healthy.txt"), 0))


def tind_inner_loop(img):
    """/big gets a triple-indirect block whose first slot names a block
    whose first slot names itself (no root repeats), and a size that
    reaches it: file block 65804 (64 MiB in) is that block."""
    ino = img.lookup("/big")
    t, x = img.alloc_block(), img.alloc_block()
    img.put_words(t, [x] + [0] * (img.bsize // 4 - 1))
    img.put_words(x, [x] + [0] * (img.bsize // 4 - 1))
    img.iblock(ino, TIND, t)
    img.inode(ino, "blocks", img.inode(ino, "blocks") + 2 * img.bsize // 512)
    img.inode(ino, "size", 65806 * 1024)
    target_in_evil(img, img.iblock(img.lookup("/healthy.txt"), 0))


def direct_is_indirect(img):
    """/big's first direct block is its own indirect block: a write to
    file block 0 rewrites the map of blocks 12 on."""
    ino = img.lookup("/big")
    img.iblock(ino, 0, img.iblock(ino, IND))
    target_in_evil(img, img.iblock(img.lookup("/healthy.txt"), 0))


def set_entry(img, dirpath, name, ino=None, new_name=None, ftype=None):
    """Change the entry `name` of directory dirpath in place."""
    for b, off, _, _, name_len, n in img.entries(img.lookup(dirpath)):
        if n == name.encode():
            at = b * img.bsize + off
            if ino is not None:
                struct.pack_into("<I", img.d, at, ino)
            if new_name is not None:
                assert len(new_name) == name_len
                img.d[at + 8:at + 8 + name_len] = new_name.encode()
            if ftype is not None:
                img.d[at + 7] = ftype
            return
    raise KeyError(name)


def add_entry(img, dirpath, name, ino, ftype):
    """A new entry at the end of directory dirpath's last block, in the
    last entry's slack (no counts change: that is the damage)."""
    ents = img.entries(img.lookup(dirpath))
    b, off, _, rec_len, name_len, _ = ents[-1]
    used = (8 + name_len + 3) & ~3
    need = (8 + len(name) + 3) & ~3
    assert rec_len - used >= need
    at = b * img.bsize + off
    struct.pack_into("<H", img.d, at + 4, used)
    struct.pack_into("<IHBB", img.d, at + used, ino, rec_len - used, len(name), ftype)
    img.d[at + used + 8:at + used + 8 + len(name)] = name.encode()


def dotdot_is_a_file(img):
    """/sub/deeper's ".." names /evil.txt, a regular file whose one block
    is a well-formed directory block ("." and ".." to the root): a climb
    through ".." (rename's "is it below itself?") walks through a file."""
    evil = img.lookup("/evil.txt")
    blk = img.iblock(evil, 0)
    out = struct.pack("<IHBB", evil, 12, 1, 2) + b".\0\0\0"
    out += struct.pack("<IHBB", 2, img.bsize - 12, 2, 2) + b"..\0\0"
    img.put_block(blk, out + bytes(img.bsize - len(out)))
    img.inode(evil, "size", img.bsize)
    set_entry(img, "/sub/deeper", "..", ino=evil)


def dir_without_dotdot(img):
    """/sub/deeper's ".." entry is called "xx": a directory without "..",
    which a rename to another parent would have to rewrite."""
    set_entry(img, "/sub/deeper", "..", new_name="xx")


def dir_alias(img):
    """/dir/alias is a second name for the directory /sub/deeper (whose
    link count stays 2, whose ".." says /sub): removing it through the
    alias frees an inode /sub still names."""
    add_entry(img, "/dir", "alias", img.lookup("/sub/deeper"), 2)


def fast_symlink_size_lies(img):
    """/evil.txt becomes a fast symlink (no blocks, its text in i_block[])
    whose size says 200 bytes: 140 past the 60 it holds."""
    ino = img.lookup("/evil.txt")
    img.inode(ino, "mode", 0o120777)
    img.inode(ino, "blocks", 0)
    text = b"hello.txt"
    img.d[img.inode_off(ino) + 40:img.inode_off(ino) + 100] = text + bytes(60 - len(text))
    img.inode(ino, "size", 200)


def pointers_into_metadata(img):
    """/evil.txt's block is the group descriptor table; /big's indirect
    block is the inode bitmap."""
    img.iblock(img.lookup("/evil.txt"), 0, img.sb("first_data_block") + 1)
    img.iblock(img.lookup("/big"), IND, img.gd(0, "inode_bitmap"))


def bitmap_frees_inode_table(img):
    """The block bitmap says the inode table's blocks are free (and the
    counts agree): the first block an allocation finds is the table's."""
    bb, it, first = img.gd(0, "block_bitmap"), img.gd(0, "inode_table"), img.sb("first_data_block")
    n = -(-img.sb("inodes_per_group") * img.isize // img.bsize)
    for b in range(it, it + n):
        img.bitmap_bit(bb, b - first, 0)
    img.gd(0, "free_blocks_count", img.gd(0, "free_blocks_count") + n)
    img.sb("free_blocks_count", img.sb("free_blocks_count") + n)


def inode_bitmap_frees_reserved(img):
    """The inode bitmap says the reserved inodes 1-10 are free: the first
    inode an allocation finds is the bad-blocks inode."""
    ib = img.gd(0, "inode_bitmap")
    for ino in range(1, img.sb("first_ino")):
        img.bitmap_bit(ib, ino - 1, 0)


def group_free_count_lies(img):
    """Group 0 says 65535 blocks are free, of 255: the first free adds
    one, wraps the 16-bit count to 0, and the group looks full."""
    img.gd(0, "free_blocks_count", 0xFFFF)


def super_free_count_lies(img):
    """The superblock says one inode more is free than there are inodes."""
    img.sb("free_inodes_count", img.sb("inodes_count") + 1)


def file_size_huge(img):
    """/evil.txt's size is 0xfffff000 over its one block: a hole of 4 GiB."""
    img.inode(img.lookup("/evil.txt"), "size", 0xFFFFF000)


def entry_spans_blocks(img):
    """/dir's last entry's record runs 12 bytes past the end of its block."""
    ents = img.entries(img.lookup("/dir"))
    b, off, _, rec_len, _, _ = ents[-1]
    struct.pack_into("<H", img.d, b * img.bsize + off + 4, rec_len + 12)


def dirent_inode_one(img):
    """/dir/c's entry names inode 1 (the bad-blocks inode)."""
    set_entry(img, "/dir", "c", ino=1)


def dirent_inode_one_past(img):
    """/dir/c's entry names the inode one past the last."""
    set_entry(img, "/dir", "c", ino=img.sb("inodes_count") + 1)


def dir_hole(img):
    """/dir is two blocks long, owns two (i_blocks), and its second block
    pointer is 0: a hole, which a directory may not have."""
    d = img.lookup("/dir")
    img.inode(d, "size", 2 * img.bsize)
    img.inode(d, "blocks", img.inode(d, "blocks") + img.bsize // 512)


def dotdot_loop(img):
    """/sub's ".." names /sub/deeper, whose ".." names /sub: a climb from
    either never reaches the root."""
    set_entry(img, "/sub", "..", ino=img.lookup("/sub/deeper"))


def root_not_a_directory(img):
    """The root inode is a regular file."""
    img.inode(2, "mode", 0o100644)


def dotdot_elsewhere(img):
    """/sub/deeper's ".." names /dir, which holds no name for it."""
    set_entry(img, "/sub/deeper", "..", ino=img.lookup("/dir"))


def dir_links_lie(img):
    """/sub/deeper's link count is 3 (two names and its "." make 2)."""
    img.inode(img.lookup("/sub/deeper"), "links_count", 3)


def inode_bit_clear_while_open(img):
    """/hello.txt's inode bitmap bit is clear, and it is the lowest clear
    bit: the next create would take the inode of a file open meanwhile."""
    inode_freed_already(img)


def inodes_count_disagrees(img):
    """s_inodes_count is one more than groups x inodes per group."""
    img.sb("inodes_count", img.sb("inodes_count") + 1)


def first_ino_past_count(img):
    """s_first_ino, the first inode a file may have, is past the last."""
    img.sb("first_ino", img.sb("inodes_count") + 1)


def reserved_gdt_huge(img):
    """resize_inode's reserved descriptor blocks: 300, more than one
    indirect block (256 pointers) can map."""
    img.sb("feature_compat", img.sb("feature_compat") | 0x10)
    img.sb("reserved_gdt_blocks", 300)


def i_blocks_too_small(img):
    """/big's i_blocks counts 10 blocks; its map names 21."""
    img.inode(img.lookup("/big"), "blocks", 10 * img.bsize // 512)


# ---------------------------------------------------------------- attacks: only the whole disk shows them
# Each image below is sound wherever one operation looks; only a view of
# the whole disk (the mount's check, e2fsck) sees the contradiction, and
# without it a healthy-looking operation harms an intact file.
def blocks_shared(img):
    """/evil.txt's block is /healthy.txt's first block (two maps name it):
    a write to evil.txt rewrites healthy.txt."""
    img.iblock(img.lookup("/evil.txt"), 0, img.iblock(img.lookup("/healthy.txt"), 0))


def block_free_in_bitmap(img):
    """/healthy.txt's first block is free in the block bitmap (counts to
    match) and the lowest free block: the next allocation takes it."""
    blk, first = img.iblock(img.lookup("/healthy.txt"), 0), img.sb("first_data_block")
    bb = img.gd(0, "block_bitmap")
    for b in range(first, blk):                 # every block before it in use
        if not img.bitmap_bit(bb, b - first):
            img.bitmap_bit(bb, b - first, 1)
            img.gd(0, "free_blocks_count", img.gd(0, "free_blocks_count") - 1)
            img.sb("free_blocks_count", img.sb("free_blocks_count") - 1)
    img.bitmap_bit(bb, blk - first, 0)
    img.gd(0, "free_blocks_count", img.gd(0, "free_blocks_count") + 1)
    img.sb("free_blocks_count", img.sb("free_blocks_count") + 1)


def lowest_free_inode(img):
    ib, ipg = img.gd(0, "inode_bitmap"), img.sb("inodes_per_group")
    return next(i + 1 for i in range(ipg) if not img.bitmap_bit(ib, i))


def dirent_names_free_inode(img):
    """/dir/ghost names the lowest free inode (bit clear, no links): the
    next create takes that inode, and the old name reaches the new file."""
    add_entry(img, "/dir", "ghost", lowest_free_inode(img), 1)


def links_below_names(img):
    """/dir/hello2 is a second name for /hello.txt, whose link count stays
    1: unlinking dir/hello2 frees the inode and block /hello.txt names."""
    add_entry(img, "/dir", "hello2", img.lookup("/hello.txt"), 1)


def dirent_type_disagrees(img):
    """/dir/a's entry says directory (type 2); its inode is a regular file."""
    set_entry(img, "/dir", "a", ftype=2)


def i_blocks_too_large(img):
    """/evil.txt's i_blocks counts 3 blocks; its map names 1 (the
    operations only ever find a map larger than i_blocks)."""
    img.inode(img.lookup("/evil.txt"), "blocks", 3 * img.bsize // 512)


def dir_hole_counts_agree(img):
    """/sub is 13 blocks long and its block 1 is a hole; blocks 2 to 12
    are empty directory blocks (12 through an indirect block), taken in
    the bitmap and counted in i_blocks: only the hole is wrong (i_blocks,
    13 blocks, covers the size, which dir_hole's counts a block for)."""
    d, empty = img.lookup("/sub"), struct.pack("<IH", 0, img.bsize) + bytes(img.bsize - 6)
    for lbn in range(2, NDIR):
        img.iblock(d, lbn, img.alloc_block())
        img.put_block(img.iblock(d, lbn), empty)
    ind, blk = img.alloc_block(), img.alloc_block()
    img.put_block(blk, empty)
    img.put_words(ind, [blk] + [0] * (img.bsize // 4 - 1))
    img.iblock(d, IND, ind)
    img.inode(d, "size", 13 * img.bsize)
    img.inode(d, "blocks", 13 * img.bsize // 512)


def dotdot_counts_agree(img):
    """/sub/deeper's ".." names the root, and the link counts moved with
    it (/sub 2, the root one more): every count adds up, only the parent
    is wrong (dotdot_elsewhere's counts do not)."""
    set_entry(img, "/sub/deeper", "..", ino=2)
    img.inode(img.lookup("/sub"), "links_count", img.inode(img.lookup("/sub"), "links_count") - 1)
    img.inode(2, "links_count", img.inode(2, "links_count") + 1)


def dotdot_in_second_block(img):
    """/sub/deeper's first block holds "." and "file"; its ".." (to /sub,
    the right parent) is alone in a second block, taken in the bitmap and
    counted in i_blocks: only where ".." stands is wrong (e2fsck wants it
    second in the first block, where the mount's check reads it)."""
    d, sub = img.lookup("/sub/deeper"), img.lookup("/sub")
    f, b0, b1 = img.lookup("/sub/deeper/file"), img.iblock(d, 0), img.alloc_block()
    out = struct.pack("<IHBB", d, 12, 1, 2) + b".\0\0\0"
    out += struct.pack("<IHBB", f, img.bsize - 12, 4, 1) + b"file"
    img.put_block(b0, out + bytes(img.bsize - len(out)))
    out = struct.pack("<IHBB", sub, img.bsize, 2, 2) + b"..\0\0"
    img.put_block(b1, out + bytes(img.bsize - len(out)))
    img.iblock(d, 1, b1)
    img.inode(d, "size", 2 * img.bsize)
    img.inode(d, "blocks", img.inode(d, "blocks") + img.bsize // 512)


def dotdot_twice(img):
    """/dir holds a second ".." (to the root, the right parent) after its
    files; the root's link count counts it: only the entry is wrong."""
    add_entry(img, "/dir", "..", 2, 2)
    img.inode(2, "links_count", img.inode(2, "links_count") + 1)


def dir_two_names_one_parent(img):
    """/sub/alias is a second name for /sub/deeper in the same parent, so
    its ".." is right for both names; its link count says 3: every count
    adds up, only a directory has two names (rmdir through one leaves the
    other naming a free inode)."""
    d = img.lookup("/sub/deeper")
    add_entry(img, "/sub", "alias", d, 2)
    img.inode(d, "links_count", img.inode(d, "links_count") + 1)


def root_named_in_root(img):
    """/self is a name for the root, in the root (its ".." right for it),
    the root's link count one more: only the root has a name."""
    add_entry(img, "/", "self", 2, 2)
    img.inode(2, "links_count", img.inode(2, "links_count") + 1)


def root_dotdot_elsewhere(img):
    """The root's ".." names /dir, the link counts moved with it (the root
    one fewer, /dir one more): only the root's parent is wrong."""
    d = img.lookup("/dir")
    set_entry(img, "/", "..", ino=d)
    img.inode(2, "links_count", img.inode(2, "links_count") - 1)
    img.inode(d, "links_count", img.inode(d, "links_count") + 1)


def dir_without_blocks(img):
    """/sub/deeper is empty of blocks: size 0, i_blocks 0, its one block
    free in the bitmap (counts to match), so no "." and no ".."; the
    counts add up as far as the mount's check counts them (its file's
    only name is gone: a leak, more links than names)."""
    d = img.lookup("/sub/deeper")
    blk, first = img.iblock(d, 0), img.sb("first_data_block")
    img.iblock(d, 0, 0)
    img.inode(d, "size", 0)
    img.inode(d, "blocks", 0)
    img.bitmap_bit(img.gd(0, "block_bitmap"), blk - first, 0)
    img.gd(0, "free_blocks_count", img.gd(0, "free_blocks_count") + 1)
    img.sb("free_blocks_count", img.sb("free_blocks_count") + 1)


def dir_size_not_whole_blocks(img):
    """/sub/deeper's size is a block and 4 bytes (its one block; i_blocks
    says one): iget refuses it, the mount's count of blocks (size / block
    size) did not see it."""
    d = img.lookup("/sub/deeper")
    img.inode(d, "size", img.bsize + 4)


def reserved_inode_free(img):
    """Reserved inode 9's bitmap bit is clear, the lowest clear bit (the
    next create's), and the free counts count it: only the bit is wrong."""
    img.bitmap_bit(img.gd(0, "inode_bitmap"), 9 - 1, 0)
    img.gd(0, "free_inodes_count", img.gd(0, "free_inodes_count") + 1)
    img.sb("free_inodes_count", img.sb("free_inodes_count") + 1)


def file_blocks_past_size(img):
    """/big's size says 5 bytes; its map still names 20 blocks (through the
    indirect one), i_blocks counts them: a truncation up (which only sets
    the size) reads their old bytes back."""
    img.inode(img.lookup("/big"), "size", 5)


def fast_symlink_too_long(img):
    """/sub/deeper/file becomes a fast symlink (its text in i_block[], no
    block: its one block freed, counts to match) of size 200, and its
    entry says symlink: unlike fast_symlink_size_lies, whose entry still
    says file, only the size is wrong."""
    f, first = img.lookup("/sub/deeper/file"), img.sb("first_data_block")
    blk = img.iblock(f, 0)
    img.bitmap_bit(img.gd(0, "block_bitmap"), blk - first, 0)
    img.gd(0, "free_blocks_count", img.gd(0, "free_blocks_count") + 1)
    img.sb("free_blocks_count", img.sb("free_blocks_count") + 1)
    img.inode(f, "mode", 0o120777)
    img.inode(f, "blocks", 0)
    text = b"../../hello.txt"
    img.d[img.inode_off(f) + 40:img.inode_off(f) + 100] = text + bytes(60 - len(text))
    img.inode(f, "size", 200)
    set_entry(img, "/sub/deeper", "file", ftype=7)


def dir_duplicate_name(img):
    """/dir holds a second entry "a", in the same block, naming /hello.txt
    (whose link count counts it): a lookup finds the first, and the
    second shows when the first goes."""
    hello = img.lookup("/hello.txt")
    add_entry(img, "/dir", "a", hello, 1)
    img.inode(hello, "links_count", img.inode(hello, "links_count") + 1)


def as_symlink(img, path, text, size, slow):
    """The file at path becomes a symlink to text whose size says `size`:
    fast (its text in i_block[], its one block freed, counts to match) or
    slow (its text in its one block), its entry's type right."""
    f, first = img.lookup(path), img.sb("first_data_block")
    blk = img.iblock(f, 0)
    img.inode(f, "mode", 0o120777)
    if slow:
        img.put_block(blk, text + bytes(img.bsize - len(text)))
    else:
        img.bitmap_bit(img.gd(0, "block_bitmap"), blk - first, 0)
        img.gd(0, "free_blocks_count", img.gd(0, "free_blocks_count") + 1)
        img.sb("free_blocks_count", img.sb("free_blocks_count") + 1)
        img.inode(f, "blocks", 0)
        img.d[img.inode_off(f) + 40:img.inode_off(f) + 100] = text + bytes(60 - len(text))
    img.inode(f, "size", size)
    set_entry(img, path.rsplit("/", 1)[0], path.rsplit("/", 1)[1], ftype=7)


def fast_symlink_size_not_text(img):
    """/sub/deeper/file becomes a fast symlink whose text is 15 bytes and
    whose size says 12: readlink gives 12 of them, another name."""
    as_symlink(img, "/sub/deeper/file", b"../../hello.txt", 12, slow=False)


def slow_symlink_size_not_text(img):
    """/sub/deeper/file becomes a slow symlink (its text in its one block)
    of 15 bytes whose size says 40: readlink gives the text and 25 NULs."""
    as_symlink(img, "/sub/deeper/file", b"../../hello.txt", 40, slow=True)


def dir_loop_unreachable(img):
    """/sub and /sub/deeper name each other ("deeper" in /sub, a new "up"
    in /sub/deeper) and each one's ".." names the other; the root's "sub"
    is gone. Each has one name and the right "..", the link counts add up
    (/sub/deeper one more, the root one fewer): only a walk from the root
    shows that neither is reachable."""
    sub, deeper = img.lookup("/sub"), img.lookup("/sub/deeper")
    add_entry(img, "/sub/deeper", "up", sub, 2)
    set_entry(img, "/sub", "..", ino=deeper)
    set_entry(img, "/", "sub", ino=0)
    img.inode(2, "links_count", img.inode(2, "links_count") - 1)
    img.inode(deeper, "links_count", img.inode(deeper, "links_count") + 1)


def dir_unnamed(img):
    """/sub's entry "deeper" is gone (its inode 0): /sub/deeper, its link
    count and its ".." as they were, has no name, and nothing reaches it
    or the file below it."""
    set_entry(img, "/sub", "deeper", ino=0)


WHOLE_DISK = (blocks_shared, block_free_in_bitmap, dirent_names_free_inode, links_below_names,
              dirent_type_disagrees, i_blocks_too_large, dir_hole_counts_agree,
              dotdot_counts_agree, dotdot_in_second_block, dotdot_twice, dir_two_names_one_parent,
              root_named_in_root, root_dotdot_elsewhere, dir_without_blocks,
              dir_size_not_whole_blocks, reserved_inode_free, file_blocks_past_size,
              fast_symlink_too_long, dir_duplicate_name, fast_symlink_size_not_text,
              slow_symlink_size_not_text, dir_unnamed)

# Damage the mount's check finds and e2fsck -fn (1.47) calls clean: its
# pass 3 marks each directory done as it climbs, so a climb around a loop
# of directories meets its own start, done, and stops as if connected.
E2FSCK_MISSES = (dir_loop_unreachable,)


def check_says(name):
    """What the kernel's mount check must print for WHOLE_DISK image
    `name` (after "ext2: SOURCE: "), found from the clean image."""
    img = clean_image()
    healthy, hello = img.lookup("/healthy.txt"), img.lookup("/hello.txt")
    d, evil = img.lookup("/dir"), img.lookup("/evil.txt")
    sub, deeper = img.lookup("/sub"), img.lookup("/sub/deeper")
    says = {
        "blocks_shared": "block %d is in inodes %d and %d" % (
            img.iblock(healthy, 0), min(evil, healthy), max(evil, healthy)),
        "block_free_in_bitmap": "block %d of inode %d is free in the bitmap" % (
            img.iblock(healthy, 0), healthy),
        "dirent_names_free_inode": "'ghost' in directory %d names inode %d, which is free" % (
            d, lowest_free_inode(img)),
        "links_below_names": "inode %d has 1 links and 2 names" % hello,
        "dirent_type_disagrees": "'a' in directory %d says type 2, inode %d is type 1" % (
            d, img.lookup("/dir/a")),
        "i_blocks_too_large": "inode %d has i_blocks %d, its map names %d" % (
            evil, 3 * img.bsize // 512, img.bsize // 512),
        "dir_hole_counts_agree": "directory %d has a hole at block 1" % sub,
        "dotdot_counts_agree": "'..' of directory %d names 2, its name is in %d" % (deeper, sub),
        "dotdot_in_second_block": "directory %d does not begin with '.' and '..'" % deeper,
        "dotdot_twice": "directory %d has another '..'" % d,
        "dir_two_names_one_parent": "'alias' in directory %d is a second name for directory %d" % (
            sub, deeper),
        "root_named_in_root": "'self' in directory 2 is a second name for directory 2",
        "root_dotdot_elsewhere": "'..' of the root names %d" % d,
        "dir_without_blocks": "directory %d does not begin with '.' and '..'" % deeper,
        "dir_size_not_whole_blocks": "directory %d has size %d, not whole blocks" % (
            deeper, img.bsize + 4),
        "reserved_inode_free": "reserved inode 9 is free in the bitmap",
        "file_blocks_past_size": "inode %d has size 5 and block 19" % img.lookup("/big"),
        "fast_symlink_too_long": "fast symlink %d has size 200" % img.lookup("/sub/deeper/file"),
        "dir_duplicate_name": "'a' is twice in directory %d" % d,
        "fast_symlink_size_not_text": "symlink %d has size 12, its text 15 bytes" % img.lookup(
            "/sub/deeper/file"),
        "slow_symlink_size_not_text": "symlink %d has size 40, its text 15 bytes" % img.lookup(
            "/sub/deeper/file"),
        "dir_loop_unreachable": "directory %d is not reachable from the root" % sub,
        "dir_unnamed": "directory %d is not reachable from the root" % deeper,
    }[name]
    return says + ": read-only; run e2fsck"

ATTACKS = WHOLE_DISK + E2FSCK_MISSES + (ind_self_loop, dind_self_loop, tind_inner_loop, direct_is_indirect, dotdot_is_a_file,
           dir_without_dotdot, dir_alias, fast_symlink_size_lies, pointers_into_metadata,
           bitmap_frees_inode_table, inode_bitmap_frees_reserved, group_free_count_lies,
           super_free_count_lies,
           file_size_huge, entry_spans_blocks, dirent_inode_one, dirent_inode_one_past, dir_hole,
           dotdot_loop, root_not_a_directory, dotdot_elsewhere, dir_links_lie,
           inode_bit_clear_while_open, inodes_count_disagrees, first_ino_past_count,
           reserved_gdt_huge, i_blocks_too_small)

CORRUPTIONS = {f.__name__: f for f in ATTACKS + (
    short_last_dirent, dirent_reserved_inode, dirent_inode_out_of_range,
    blocks_per_group_huge, inodes_per_group_huge, inode_table_wraps,
    block_bitmap_on_superblock, inode_table_on_bitmap, blocks_count_past_image,
    revision_unknown, groups_over_65536, tind_self_loop, dir_huge_size,
    block_twice_in_file, pointer_into_inode_table, inode_freed_already, file_without_links,
    ro_compat_unknown_root_without_links, ro_compat_unknown, pointer_past_end)}

# ---------------------------------------------------------------- "nothing intact was harmed"
# The files of victim_tree() that no damage touches: the guest reads
# them, never changes them, and whatever it does to the damaged parts
# must leave them, and every structure of the filesystem, as they were.
INTACT = ("hello.txt", "healthy.txt", "big", "dir/a", "dir/b", "dir/c", "sub/deeper/file")
# What a damage (or e2bad's use of it) may change among them.
SPOILS = {
    "short_last_dirent": ("dir/a", "dir/b", "dir/c"), "dirent_reserved_inode": ("dir/a",),
    "dirent_inode_out_of_range": ("dir/b",), "tind_self_loop": ("big",),
    "dir_huge_size": ("dir/a", "dir/b", "dir/c"), "block_twice_in_file": ("hello.txt",),
    "inode_freed_already": ("hello.txt",), "file_without_links": ("hello.txt",),
    "ind_self_loop": ("big",), "dind_self_loop": ("big",), "tind_inner_loop": ("big",),
    "direct_is_indirect": ("big",),
    "dir_alias": ("sub/deeper/file",), "pointers_into_metadata": ("big",),
    "dirent_inode_one": ("dir/c",), "dirent_inode_one_past": ("dir/c",),
    "dir_links_lie": ("sub/deeper/file",), "i_blocks_too_small": ("big",),
    "dotdot_counts_agree": ("sub/deeper/file",), "dir_hole_counts_agree": ("sub/deeper/file",),
    "dir_without_blocks": ("sub/deeper/file",), "fast_symlink_too_long": ("sub/deeper/file",),
    "fast_symlink_size_not_text": ("sub/deeper/file",),
    "slow_symlink_size_not_text": ("sub/deeper/file",), "dir_loop_unreachable": ("sub/deeper/file",),
    "dir_duplicate_name": ("hello.txt",), "dir_unnamed": ("sub/deeper/file",),
}
# free block and inode counts, s_mtime, s_wtime, s_mnt_count, s_state (a
# writable instance counts its mount and says "not clean" until its end)
SB_MAY_CHANGE = ((12, 20), (44, 54), (58, 60))
GD_MAY_CHANGE = (12, 18)                # free blocks, free inodes, directories


def harm(name, before, after):
    """What the guest changed in image `name` that it had no right to: a
    list of findings, empty if none. Compared block by block: the boot
    block and superblock but for its free counts, times, mount count and
    state; the descriptors but for their counts; no bitmap bit of a
    metadata block, a reserved inode or an intact file cleared; the inodes
    of those and the
    blocks (data and indirect) of the intact files byte for byte; and each
    intact path still naming its inode. The rest (free blocks, the damaged
    files, directories taking new names) may change."""
    if before == after:
        return []
    if len(before) != len(after):
        return ["the image's size changed"]
    b, a = Image(before), Image(after)
    found, first, bpg = [], b.sb("first_data_block"), b.sb("blocks_per_group")

    def same(off, n, what, may=()):
        for i in range(off, off + n):
            if before[i] != after[i] and not any(lo <= i - off < hi for lo, hi in may):
                found.append("%s: byte %d changed" % (what, i - off))
                return

    same(0, 1024, "boot block")
    same(1024, 1024, "superblock", SB_MAY_CHANGE)
    for g in range(b.ngroups):
        same(b.gd_off(g), 32, "group descriptor %d" % g, [GD_MAY_CHANGE])
    gdt_end = b.gd_off(0) + 32 * b.ngroups
    rsv = b.sb("reserved_gdt_blocks") if b.sb("feature_compat") & 0x10 else 0
    same(gdt_end, -(-gdt_end // b.bsize) * b.bsize - gdt_end + rsv * b.bsize,
         "descriptor table's rest and reserved blocks")

    def block_bit_set(img, blk):
        g, bit = divmod(blk - first, bpg)
        return img.bitmap_bit(b.gd(g, "block_bitmap"), bit)

    def inode_bit_set(img, ino):
        g, bit = divmod(ino - 1, b.sb("inodes_per_group"))
        return img.bitmap_bit(b.gd(g, "inode_bitmap"), bit)

    meta = set(range(first, first + 1 + -(-32 * b.ngroups // b.bsize) + rsv))  # sb, descriptors
    for g in range(b.ngroups):
        meta |= {b.gd(g, "block_bitmap"), b.gd(g, "inode_bitmap")}
        it = b.gd(g, "inode_table")
        meta |= set(range(it, it + -(-b.sb("inodes_per_group") * b.isize // b.bsize)))
    protected = [(ino, "reserved inode %d" % ino) for ino in range(1, b.sb("first_ino"))
                 if ino != 2]
    owned = set()
    for path in INTACT:
        if path in SPOILS.get(name, ()):
            continue
        ino = b.lookup(path)
        protected.append((ino, "/" + path + "'s inode"))
        try:
            now = a.lookup(path)
        except (KeyError, struct.error):
            now = None
        if now != ino:
            found.append("/%s names inode %s, was %d" % (path, now, ino))
        for blk in b.file_blocks(ino, indirect=True):
            owned.add(blk)
            same(blk * b.bsize, b.bsize, "block %d of /%s" % (blk, path))
    for ino, what in protected:
        same(b.inode_off(ino), b.isize, what)
        if inode_bit_set(b, ino) and not inode_bit_set(a, ino):
            found.append(what + ": its bitmap bit was cleared")
    for blk in sorted(meta | owned):
        if block_bit_set(b, blk) and not block_bit_set(a, blk):
            found.append("block %d (%s): its bitmap bit was cleared" %
                         (blk, "metadata" if blk in meta else "an intact file's"))
    return found


# Undamaged variants: (size KiB, mke2fs options).
HEALTHY = {
    "healthy_1k": (256, []),
    "healthy_2k": (512, ["-b", "2048"]),
    "healthy_4k": (1024, ["-b", "4096"]),
    "healthy_rev0": (256, ["-r", "0", "-O", "none"]),
    "healthy_many_groups": (1024, ["-g", "256", "-O", "^sparse_super,^resize_inode"]),
    "healthy_sparse_groups": (8192, ["-g", "1024", "-I", "256"]),
    "healthy_many_inodes": (2048, ["-N", "8192"]),  # e2bad: the mount check's yields
}


def make(name):
    if name in HEALTHY:
        size, opts = HEALTHY[name]
        # -b, -I given later win over clean_image's defaults
        return clean_image(size, *opts).d
    img = clean_image()
    CORRUPTIONS[name](img)
    return img.d


def names():
    return list(CORRUPTIONS) + list(HEALTHY)


# ---------------------------------------------------------------- the fuzzer's base
def fuzz_tree(root):
    """Something of every kind in little room: small files, one through an
    indirect block, sparse ones through the double- and triple-indirect
    trees, a directory over two blocks, fast and slow symlinks, a hard
    link, a FIFO, nesting."""
    def put(rel, data):
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
    put("hello.txt", b"hello, world\n")
    put("indirect", bytes((i * 31) & 0xFF for i in range(14 * 1024)))
    for name, offset in (("dind", 300 * 1024), ("tind", 65 * 1024 * 1024)):
        with open(os.path.join(root, name), "wb") as f:
            f.seek(offset)
            f.write(b"far away\n")
    for i in range(30):
        put("many/entry_with_a_long_name_%02d" % i, b"%d\n" % i)
    put("a/b/c/deep.txt", b"deep\n")
    os.symlink("hello.txt", os.path.join(root, "fast"))
    os.symlink("a/b/c/" + "x" * 70 + "/../deep.txt", os.path.join(root, "slow"))
    os.link(os.path.join(root, "hello.txt"), os.path.join(root, "hard"))
    os.mkfifo(os.path.join(root, "fifo"))
    os.makedirs(os.path.join(root, "empty"))


def make_base(out):
    with tempfile.TemporaryDirectory() as tmp:
        tree = os.path.join(tmp, "tree")
        os.makedirs(tree)
        fuzz_tree(tree)
        mkfs(out, 128, tree, "-b", "1024", "-N", "80", "-I", "128", "-O", "^resize_inode",
             "-L", "fuzz")


def main(argv):
    if len(argv) == 2 and argv[1] == "list":
        for n in names():
            f = CORRUPTIONS.get(n)
            print("%-40s %s" % (n, " ".join(f.__doc__.split()) if f else "undamaged"))
    elif len(argv) == 4 and argv[1] == "make" and argv[2] in names():
        with open(argv[3], "wb") as f:
            f.write(make(argv[2]))
    elif len(argv) == 3 and argv[1] == "all":
        os.makedirs(argv[2], exist_ok=True)
        for n in names():
            with open(os.path.join(argv[2], n + ".img"), "wb") as f:
                f.write(make(n))
    elif len(argv) == 5 and argv[1] == "harm":
        found = harm(argv[2], open(argv[3], "rb").read(), open(argv[4], "rb").read())
        print("\n".join(found) or "nothing intact was harmed")
        return 1 if found else 0
    elif len(argv) == 3 and argv[1] == "base":
        make_base(argv[2])
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
