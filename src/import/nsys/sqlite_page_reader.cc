#include "import/nsys/sqlite_page_reader.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <limits>

#include "base/ascii.h"
#include "base/units.h"
#include "import/nsys/sqlite_db.h"

namespace gpuwhy::import {

namespace {

constexpr uint32_t kMaxBlockBytes = 256 * 1024;
// A B-tree deeper than this is not a real table (a 4 KiB-page table of 2^40
// rows is ~6 levels); it also bounds the copies of interior pages.
constexpr size_t kMaxDepth = 40;
// Largest record reassembled from overflow pages; beyond that, fall back.
constexpr uint64_t kMaxPayloadBytes = uint64_t{64} << 20;

inline uint32_t Be16(const uint8_t* p) { return (uint32_t{p[0]} << 8) | p[1]; }
inline uint32_t Be32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}

// GetVarint: the SQLite varint at `p` (1-9 bytes, big-endian 7-bit groups,
// the 9th byte whole) into `*v`; returns its length, 0 when it runs past `end`.
inline int GetVarint(const uint8_t* p, const uint8_t* end, uint64_t* v) {
  if (p < end && p[0] < 0x80) {
    *v = p[0];
    return 1;
  }
  uint64_t x = 0;
  for (int i = 0; i < 8; ++i) {
    if (p + i >= end) return 0;
    uint8_t b = p[i];
    x = (x << 7) | (b & 0x7F);
    if ((b & 0x80) == 0) {
      *v = x;
      return i + 1;
    }
  }
  if (p + 8 >= end) return 0;
  *v = (x << 8) | p[8];
  return 9;
}

// SerialBytes: body bytes of serial type `t`, or -1 for the reserved 10, 11.
inline int64_t SerialBytes(uint64_t t) {
  static constexpr int8_t kSmall[12] = {0, 1, 2, 3, 4, 6, 8, 8, 0, 0, -1, -1};
  if (t < 12) return kSmall[t];
  return static_cast<int64_t>((t - 12) / 2);
}

// BeInt: the `n`-byte big-endian two's complement integer at `p`.
inline int64_t BeInt(const uint8_t* p, int n) {
  uint64_t x = (p[0] & 0x80) ? ~uint64_t{0} : 0;
  for (int i = 0; i < n; ++i) x = (x << 8) | p[i];
  return static_cast<int64_t>(x);
}

Status Unsupported(std::string_view why) {
  return InvalidInput(fmt::format("direct page reader: {}", why));
}

// IntLiteral: `text` as a plain (signed) decimal integer literal.
bool IntLiteral(std::string_view text, int64_t* v) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
    text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
    text.remove_suffix(1);
  bool neg = false;
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) {
    neg = text[0] == '-';
    text.remove_prefix(1);
  }
  if (text.empty() || text.size() > 19) return false;
  uint64_t x = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    x = x * 10 + static_cast<uint64_t>(c - '0');
  }
  uint64_t limit = neg ? uint64_t{1} << 63 : (uint64_t{1} << 63) - 1;
  if (x > limit) return false;
  *v = neg ? static_cast<int64_t>(0 - x) : static_cast<int64_t>(x);
  return true;
}

// RealAffinity: SQLite's column affinity rules give REAL for `type`.
bool RealAffinity(const std::string& type) {
  auto has = [&](const char* s) { return type.find(s) != std::string::npos; };
  if (has("INT") || has("CHAR") || has("CLOB") || has("TEXT") || has("BLOB")) return false;
  return has("REAL") || has("FLOA") || has("DOUB");
}

}  // namespace

Result<PageTablePlan> PlanIntTable(sqlite3* db, std::string_view table,
                                   const std::vector<std::string_view>& columns) {
  PageTablePlan plan;
  std::string sql;
  {
    sqlite3_stmt* raw = nullptr;
    if (sqlite3_prepare_v2(db,
                           "SELECT rootpage, sql FROM sqlite_master WHERE type='table' AND "
                           "name=?1",
                           -1, &raw, nullptr) != SQLITE_OK)
      return Unsupported("cannot read sqlite_master");
    SqliteStmt st(raw);
    sqlite3_bind_text(raw, 1, table.data(), static_cast<int>(table.size()), SQLITE_TRANSIENT);
    if (st.Step() != SQLITE_ROW) return Unsupported("table not in sqlite_master");
    int64_t root = st.I64(0);
    if (!IsValid(root) || root < 1 || root > std::numeric_limits<uint32_t>::max())
      return Unsupported("virtual table or bad root page");
    plan.root_page = static_cast<uint32_t>(root);
    sql = AsciiUpper(st.Text(1));
  }
  // A WITHOUT ROWID table is an index B-tree: its root page type makes the scan fall back.
  struct Col {
    std::string name, type;
    bool has_default = false;
    std::string dflt;
    int pk = 0;
  };
  std::vector<Col> cols;
  {
    std::string pragma = "PRAGMA table_xinfo(\"";
    for (char c : table) pragma += c == '"' ? std::string("\"\"") : std::string(1, c);
    pragma += "\")";
    sqlite3_stmt* raw = nullptr;
    if (sqlite3_prepare_v2(db, pragma.c_str(), -1, &raw, nullptr) != SQLITE_OK)
      return Unsupported("no PRAGMA table_xinfo");
    SqliteStmt st(raw);
    int rc;
    while ((rc = st.Step()) == SQLITE_ROW) {
      if (st.I64(0) != static_cast<int64_t>(cols.size())) return Unsupported("column ids");
      if (st.I64(6) != 0) return Unsupported("hidden or generated column");
      Col c;
      c.name = std::string(st.Text(1));
      c.type = AsciiUpper(st.Text(2));
      c.has_default = !st.IsNull(4);
      c.dflt = std::string(st.Text(4));
      c.pk = static_cast<int>(std::clamp<int64_t>(st.I64(5), 0, 1000));
      cols.push_back(std::move(c));
    }
    if (rc != SQLITE_DONE || cols.empty()) return Unsupported("cannot read the columns");
  }
  int pk_cols = 0, pk_index = -1;
  for (size_t i = 0; i < cols.size(); ++i)
    if (cols[i].pk > 0) {
      ++pk_cols;
      pk_index = static_cast<int>(i);
    }
  // An INTEGER PRIMARY KEY (not DESC) is the rowid, stored as NULL in records.
  int rowid_alias = -1;
  if (pk_cols == 1 && cols[static_cast<size_t>(pk_index)].type == "INTEGER") {
    // DESC as a word: a column such as RPD's `description_id` does not count.
    auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    for (size_t at = sql.find("DESC"); at != std::string::npos; at = sql.find("DESC", at + 1)) {
      bool word = (at == 0 || !ident(sql[at - 1])) && (at + 4 >= sql.size() || !ident(sql[at + 4]));
      if (word) return Unsupported("INTEGER PRIMARY KEY DESC");
    }
    rowid_alias = pk_index;
  }
  for (std::string_view want : columns) {
    PageColumn pc;
    for (size_t i = 0; i < cols.size(); ++i) {
      if (cols[i].name != want) continue;
      if (RealAffinity(cols[i].type)) return Unsupported("REAL column");
      pc.slot = static_cast<int>(i);
      pc.is_rowid = static_cast<int>(i) == rowid_alias;
      if (!cols[i].has_default || AsciiUpper(cols[i].dflt) == "NULL") {
        pc.default_value = kMissingI64;
      } else {
        pc.default_known = IntLiteral(cols[i].dflt, &pc.default_value);
      }
      break;
    }
    plan.columns.push_back(pc);
  }
  return plan;
}

std::string_view ImageOf(sqlite3* db) {
  sqlite3_int64 size = 0;
  unsigned char* p = sqlite3_serialize(db, "main", &size, SQLITE_SERIALIZE_NOCOPY);
  if (p == nullptr || size <= 0) return {};
  return {reinterpret_cast<const char*>(p), static_cast<size_t>(size)};
}

SqlitePageReader::SqlitePageReader(SqlitePageReader&& o) noexcept { *this = std::move(o); }

SqlitePageReader& SqlitePageReader::operator=(SqlitePageReader&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = o.fd_;
    o.fd_ = -1;
    path_ = std::move(o.path_);
    image_ = o.image_;
    size_ = o.size_;
    page_size_ = o.page_size_;
    usable_ = o.usable_;
    page_count_ = o.page_count_;
    std::memcpy(header_, o.header_, sizeof(header_));
    mtime_ns_ = o.mtime_ns_;
    ino_ = o.ino_;
    block_ = std::move(o.block_);
    block_off_ = o.block_off_;
    block_valid_ = o.block_valid_;
    scratch_ = std::move(o.scratch_);
    values_ = std::move(o.values_);
  }
  return *this;
}

SqlitePageReader::~SqlitePageReader() {
  if (fd_ >= 0) ::close(fd_);
}

namespace {

// CheckHeader: fills page size, usable size and page count from the
// 100-byte header `h` of a database of `size` bytes.
Status CheckHeader(const uint8_t* h, uint64_t size, uint32_t* page_size, uint32_t* usable,
                   uint32_t* page_count) {
  if (std::memcmp(h, "SQLite format 3", 16) != 0) return Unsupported("no SQLite header");
  uint32_t ps = Be16(h + 16);
  if (ps == 1) ps = 65536;
  if (ps < 512 || ps > 65536 || (ps & (ps - 1)) != 0) return Unsupported("page size");
  if (h[18] != 1 || h[19] != 1) return Unsupported("WAL mode or unknown file format version");
  if (h[21] != 64 || h[22] != 32 || h[23] != 32) return Unsupported("payload fractions");
  uint32_t u = ps - h[20];
  if (u < 480) return Unsupported("reserved bytes");
  uint32_t schema = Be32(h + 44);
  if (schema < 1 || schema > 4) return Unsupported("schema format");
  uint64_t file_pages = size / ps;
  uint64_t pages = Be32(h + 28);
  if (pages == 0 || std::memcmp(h + 24, h + 92, 4) != 0) pages = file_pages;
  if (pages > file_pages || pages == 0) return Unsupported("page count past the end of the file");
  *page_size = ps;
  *usable = u;
  *page_count = static_cast<uint32_t>(pages);
  return Status::Ok();
}

}  // namespace

Result<SqlitePageReader> SqlitePageReader::OpenFile(const std::string& path) {
  struct stat wal {};
  if (::stat((path + "-wal").c_str(), &wal) == 0) return Unsupported("a -wal file is present");
  SqlitePageReader r;
  r.path_ = path;
  r.fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (r.fd_ < 0) return Unsupported(fmt::format("cannot open: {}", std::strerror(errno)));
  struct stat st {};
  if (::fstat(r.fd_, &st) != 0 || !S_ISREG(st.st_mode)) return Unsupported("not a regular file");
  r.size_ = static_cast<uint64_t>(st.st_size);
  r.mtime_ns_ = static_cast<int64_t>(st.st_mtim.tv_sec) * kNsPerS + st.st_mtim.tv_nsec;
  r.ino_ = static_cast<uint64_t>(st.st_ino);
  if (r.size_ < 100 || ::pread(r.fd_, r.header_, 100, 0) != 100) return Unsupported("short file");
  RETURN_IF_ERROR(CheckHeader(r.header_, r.size_, &r.page_size_, &r.usable_, &r.page_count_));
  ::posix_fadvise(r.fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
  return r;
}

Result<SqlitePageReader> SqlitePageReader::OpenImage(std::string_view bytes) {
  SqlitePageReader r;
  r.image_ = reinterpret_cast<const uint8_t*>(bytes.data());
  r.size_ = bytes.size();
  if (r.size_ < 100) return Unsupported("short image");
  std::memcpy(r.header_, r.image_, 100);
  RETURN_IF_ERROR(CheckHeader(r.header_, r.size_, &r.page_size_, &r.usable_, &r.page_count_));
  return r;
}

Status SqlitePageReader::Unchanged() const {
  if (image_ != nullptr) return Status::Ok();
  struct stat st {};
  uint8_t now[100];
  if (::fstat(fd_, &st) != 0 || static_cast<uint64_t>(st.st_size) != size_ ||
      static_cast<uint64_t>(st.st_ino) != ino_ ||
      static_cast<int64_t>(st.st_mtim.tv_sec) * kNsPerS + st.st_mtim.tv_nsec != mtime_ns_ ||
      ::pread(fd_, now, 100, 0) != 100 || std::memcmp(now, header_, 100) != 0)
    return Unsupported("the file changed during the scan");
  return Status::Ok();
}

Result<const uint8_t*> SqlitePageReader::Page(uint32_t pgno) {
  if (pgno < 1 || pgno > page_count_) return Unsupported(fmt::format("page {} out of range", pgno));
  uint64_t off = uint64_t{pgno - 1} * page_size_;
  if (image_ != nullptr) return image_ + off;
  // Blocks are aligned multiples of the page size, so a page never spans two.
  uint64_t bs = std::max<uint64_t>(page_size_, kMaxBlockBytes);
  uint64_t start = off & ~(bs - 1);
  if (!block_valid_ || start != block_off_) {
    uint64_t n = std::min<uint64_t>(bs, size_ - start);
    block_.resize(static_cast<size_t>(n));
    size_t got = 0;
    while (got < n) {
      ssize_t k = ::pread(fd_, block_.data() + got, n - got, static_cast<off_t>(start + got));
      if (k < 0 && errno == EINTR) continue;
      if (k <= 0) {
        block_valid_ = false;
        return Unsupported("short read");
      }
      got += static_cast<size_t>(k);
    }
    block_off_ = start;
    block_valid_ = true;
  }
  if (off + page_size_ > block_off_ + block_.size()) return Unsupported("page past the end");
  return block_.data() + (off - block_off_);
}

namespace {

// Visit: marks page `pgno` seen; false when it was already (a cycle).
inline bool Visit(std::vector<uint8_t>* visited, uint32_t pgno) {
  uint8_t& b = (*visited)[pgno >> 3];
  uint8_t bit = static_cast<uint8_t>(1u << (pgno & 7));
  if (b & bit) return false;
  b |= bit;
  return true;
}

}  // namespace

Status SqlitePageReader::ReadRaw(uint32_t pgno, uint32_t at, uint32_t n, uint8_t* out) const {
  if (pgno < 1 || pgno > page_count_ || uint64_t{at} + n > page_size_)
    return Unsupported(fmt::format("page {} out of range", pgno));
  uint64_t off = uint64_t{pgno - 1} * page_size_ + at;
  if (image_ != nullptr) {
    std::memcpy(out, image_ + off, n);
    return Status::Ok();
  }
  size_t got = 0;
  while (got < n) {
    ssize_t k = ::pread(fd_, out + got, n - got, static_cast<off_t>(off + got));
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return Unsupported("short read");
    got += static_cast<size_t>(k);
  }
  return Status::Ok();
}

Status SqlitePageReader::GatherOverflow(const uint8_t* local, uint32_t n_local, uint64_t total,
                                        uint32_t next, std::vector<uint8_t>* visited) {
  if (total > kMaxPayloadBytes || total > uint64_t{page_count_} * usable_)
    return Unsupported("payload too large");
  scratch_.resize(static_cast<size_t>(total));
  std::memcpy(scratch_.data(), local, n_local);
  uint64_t have = n_local;
  while (have < total) {
    if (next == 0 || next > page_count_ || !Visit(visited, next))
      return Unsupported("bad overflow chain");
    // Read past the block cache: the leaf page being decoded lives there.
    uint64_t n = std::min<uint64_t>(usable_ - 4, total - have);
    uint8_t link[4];
    RETURN_IF_ERROR(ReadRaw(next, 0, 4, link));
    RETURN_IF_ERROR(ReadRaw(next, 4, static_cast<uint32_t>(n), scratch_.data() + have));
    have += n;
    next = Be32(link);
  }
  return Status::Ok();
}

Status SqlitePageReader::DecodeLeaf(const uint8_t* page, uint32_t pgno, const PageTablePlan& plan,
                                    std::vector<uint8_t>* visited) {
  const uint32_t hdr = pgno == 1 ? 100 : 0;
  const uint32_t n_cells = Be16(page + hdr + 3);
  const size_t n_cols = plan.columns.size();
  if (hdr + 8 + uint64_t{2} * n_cells > usable_) return Unsupported("cell count");
  values_.resize(n_cells * n_cols);
  const uint8_t* end = page + usable_;
  const uint32_t max_local = usable_ - 35;
  const uint32_t min_local = (usable_ - 12) * 32 / 255 - 23;
  // The highest record slot wanted; rowid / absent columns need no slot.
  int max_slot = -1;
  for (const PageColumn& c : plan.columns)
    if (!c.is_rowid) max_slot = std::max(max_slot, c.slot);
  for (uint32_t i = 0; i < n_cells; ++i) {
    const uint32_t off = Be16(page + hdr + 8 + 2 * i);
    if (off < hdr + 8 || off >= usable_) return Unsupported("cell offset");
    const uint8_t* p = page + off;
    uint64_t payload = 0, rowid_u = 0;
    int k = GetVarint(p, end, &payload);
    if (k == 0) return Unsupported("cell header");
    p += k;
    k = GetVarint(p, end, &rowid_u);
    if (k == 0) return Unsupported("cell header");
    p += k;
    const int64_t rowid = static_cast<int64_t>(rowid_u);
    uint64_t local = payload;
    if (payload > max_local) {
      uint64_t kk = min_local + (payload - min_local) % (usable_ - 4);
      local = kk <= max_local ? kk : min_local;
    }
    if (local > static_cast<uint64_t>(end - p) ||
        (local < payload && local + 4 > static_cast<uint64_t>(end - p)))
      return Unsupported("cell past the page");
    const uint8_t* rec = p;
    if (local < payload) {
      RETURN_IF_ERROR(
          GatherOverflow(p, static_cast<uint32_t>(local), payload, Be32(p + local), visited));
      rec = scratch_.data();
    }
    const uint8_t* rec_end = rec + payload;
    int64_t* out = values_.data() + size_t{i} * n_cols;
    // Header: its size, then one serial type per column in slot order.
    uint64_t hsize = 0;
    k = GetVarint(rec, rec_end, &hsize);
    if (k == 0 || hsize < static_cast<uint64_t>(k) || hsize > payload)
      return Unsupported("record header");
    const uint8_t* hp = rec + k;
    const uint8_t* hend = rec + hsize;
    // Serial types and body offsets of slots 0..max_slot (short records stop early).
    uint64_t types[64];
    uint64_t offs[64];
    const uint8_t* body = hend;
    uint64_t body_off = 0;
    int n_slots = 0;
    const int want_slots = std::min(max_slot + 1, 64);
    while (n_slots < want_slots && hp < hend) {
      uint64_t t = 0;
      k = GetVarint(hp, hend, &t);
      if (k == 0) return Unsupported("record header");
      hp += k;
      int64_t bytes = SerialBytes(t);
      if (bytes < 0) return Unsupported("reserved serial type");
      types[n_slots] = t;
      offs[n_slots] = body_off;
      body_off += static_cast<uint64_t>(bytes);
      ++n_slots;
    }
    if (max_slot >= 64 && n_slots == 64) return Unsupported("more than 64 columns");
    const uint64_t body_len = static_cast<uint64_t>(rec_end - body);
    for (size_t c = 0; c < n_cols; ++c) {
      const PageColumn& col = plan.columns[c];
      if (col.slot < 0) {
        out[c] = kMissingI64;
        continue;
      }
      if (col.is_rowid) {
        out[c] = rowid;
        continue;
      }
      if (col.slot >= n_slots) {
        if (!col.default_known) return Unsupported("short record, unknown default");
        out[c] = col.default_value;
        continue;
      }
      const uint64_t t = types[col.slot];
      if (t == 0) {
        out[c] = kMissingI64;
      } else if (t <= 6) {
        const int n = static_cast<int>(SerialBytes(t));
        if (offs[col.slot] + static_cast<uint64_t>(n) > body_len)
          return Unsupported("record body past its end");
        out[c] = BeInt(body + offs[col.slot], n);
      } else if (t == 8 || t == 9) {
        out[c] = static_cast<int64_t>(t - 8);
      } else {
        return Unsupported("a REAL, text or blob value in an integer column");
      }
    }
  }
  return Status::Ok();
}

Status SqlitePageReader::ScanInts(const PageTablePlan& plan, const IntRowsFn& rows,
                                  uint64_t* n_rows) {
  *n_rows = 0;
  if (plan.root_page < 1 || plan.root_page > page_count_) return Unsupported("root page");
  std::vector<uint8_t> visited(page_count_ / 8 + 1, 0);
  // One copy per interior level: Page() keeps only one block.
  struct Level {
    std::vector<uint8_t> page;
    uint32_t hdr = 0;
    uint32_t n_cells = 0;
    uint32_t next = 0;  // next child to visit: cells 0..n-1, then the right-most pointer
  };
  std::vector<Level> stack;
  stack.reserve(8);
  uint32_t pgno = plan.root_page;
  for (;;) {
    if (pgno != 0) {
      if (pgno > page_count_ || !Visit(&visited, pgno)) return Unsupported("page cycle or range");
      ASSIGN_OR_RETURN(const uint8_t* page, Page(pgno));
      const uint32_t hdr = pgno == 1 ? 100 : 0;
      const uint8_t type = page[hdr];
      if (type == 0x0D) {
        RETURN_IF_ERROR(DecodeLeaf(page, pgno, plan, &visited));
        const size_t n = Be16(page + hdr + 3);
        if (n > 0) rows(values_.data(), n);
        *n_rows += n;
      } else if (type == 0x05) {
        if (stack.size() >= kMaxDepth) return Unsupported("B-tree too deep");
        Level lv;
        lv.page.assign(page, page + page_size_);
        lv.hdr = hdr;
        lv.n_cells = Be16(page + hdr + 3);
        if (hdr + 12 + uint64_t{2} * lv.n_cells > usable_) return Unsupported("cell count");
        stack.push_back(std::move(lv));
      } else {
        return Unsupported(fmt::format("page type {:#x}", type));
      }
      pgno = 0;
    }
    if (stack.empty()) break;
    Level& top = stack.back();
    const uint8_t* p = top.page.data();
    if (top.next < top.n_cells) {
      const uint32_t off = Be16(p + top.hdr + 12 + 2 * top.next);
      if (off < top.hdr + 12 || off + 4 > usable_) return Unsupported("cell offset");
      pgno = Be32(p + off);
      ++top.next;
    } else if (top.next == top.n_cells) {
      pgno = Be32(p + top.hdr + 8);
      ++top.next;
    } else {
      stack.pop_back();
      continue;
    }
    if (pgno == 0) return Unsupported("child page 0");
  }
  return Unchanged();
}

}  // namespace gpuwhy::import
