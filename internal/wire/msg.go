package wire

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"strings"

	"github.com/lodedb/lode/internal/errs"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// OP_MSG flag bits.
const (
	// ChecksumPresent (bit 0): the message ends with a CRC-32C checksum.
	ChecksumPresent uint32 = 1 << 0
	// MoreToCome (bit 1): the sender will not wait for a reply.
	MoreToCome uint32 = 1 << 1
	// ExhaustAllowed (bit 16): the client accepts several replies.
	ExhaustAllowed uint32 = 1 << 16

	// requiredFlagMask covers bits 0-15; a set bit there that this parser
	// does not know makes the message illegal.
	requiredFlagMask uint32 = 0xFFFF
	knownFlags              = ChecksumPresent | MoreToCome
)

// OP_MSG section kinds.
const (
	sectionBody          = 0
	sectionDocSequence   = 1
	sectionSecurityToken = 2
)

// maxDocumentSequences is mongod's limit on kind-1 sections per message.
const maxDocumentSequences = 2

// castagnoli is the CRC-32C table used by OP_MSG checksums.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Msg is a decoded OP_MSG.
type Msg struct {
	Header
	// FlagBits are the message flags (ChecksumPresent, MoreToCome, ...).
	FlagBits uint32
	// Body is the kind-0 section: the command document.
	Body bsoncore.Document
	// Sequences are the kind-1 sections in message order.
	Sequences []Sequence
	// Checksum is the CRC-32C trailer; meaningful if HasChecksum.
	Checksum uint32
	// HasChecksum reports that the message carried a (verified) checksum.
	HasChecksum bool
	// Depth is the nesting depth of the command as Merged returns it,
	// measured by the validating pass: the body is at depth 0, each
	// embedded document or array one deeper, and a sequence's documents
	// at depth 2 (elements of their array field). A command at depth d
	// carries documents whose own elements sit at most d-1 levels deep.
	Depth int
	// ZeroTimestamp reports that some value of the command, at any
	// depth, is a Timestamp(0, 0); when false no insert needs the time
	// filled in.
	ZeroTimestamp bool
	// namesChecked: the parser found no sequence named like a body field
	// or like another sequence, so Merged need not look again.
	namesChecked bool
	// mem is the pooled memory the message was read into, for Recycle
	// (msgmem.go); nil when it has none.
	mem *msgMem
}

// Sequence is a kind-1 OP_MSG section: a named list of documents that
// logically form an array field of the command (e.g. insert's "documents").
type Sequence struct {
	// Identifier is the name of the field the documents belong to.
	Identifier string
	// Documents are the documents, in order.
	Documents []bsoncore.Document
	// IDFirst reports that each document's first field is _id and no
	// other top-level field is named _id, as the validating pass found.
	IDFirst bool
}

// MoreToCome reports whether the moreToCome flag is set (no reply wanted).
func (m *Msg) MoreToCome() bool { return m.FlagBits&MoreToCome != 0 }

// ExhaustAllowed reports whether the exhaustAllowed flag is set.
func (m *Msg) ExhaustAllowed() bool { return m.FlagBits&ExhaustAllowed != 0 }

// parseMsg decodes an OP_MSG. raw is the whole message, header included.
// mem, when not nil, is the pooled memory raw lies in: the message keeps
// it for Recycle, and the first sequence's documents go in its slice.
func parseMsg(h Header, raw []byte, mem *msgMem) (*Msg, *ProtocolError) {
	body := raw[HeaderLen:]
	if len(body) < 4 {
		return nil, badMessage(errs.ProtocolError, "OP_MSG is too short to hold its flags")
	}
	m := &Msg{Header: h, FlagBits: binary.LittleEndian.Uint32(body)}
	if unknown := m.FlagBits & requiredFlagMask &^ knownFlags; unknown != 0 {
		return nil, &ProtocolError{Fatal: true, Err: errs.New(CodeIllegalOpMsgFlag,
			"Message contains illegal flags value: Ob%032b", m.FlagBits)}
	}
	sections := body[4:]
	if m.FlagBits&ChecksumPresent != 0 {
		if len(sections) <= 4 {
			return nil, badMessage(errs.Location51251,
				"Invalid message size for an OpMsg containing a checksum")
		}
		m.Checksum = binary.LittleEndian.Uint32(sections[len(sections)-4:])
		m.HasChecksum = true
		if got := crc32.Checksum(raw[:len(raw)-4], castagnoli); got != m.Checksum {
			return nil, &ProtocolError{Fatal: true,
				Err: errs.New(CodeChecksumMismatch, "OP_MSG checksum does not match contents")}
		}
		sections = sections[:len(sections)-4]
	}
	haveBody := false
	for len(sections) > 0 {
		kind := sections[0]
		sections = sections[1:]
		switch kind {
		case sectionBody:
			if haveBody {
				return nil, badMessage(errs.Location40430, "Multiple body sections in message")
			}
			haveBody = true
			var sh shape
			doc, rest, perr := readDocumentShape(sections, "OP_MSG body", &sh)
			if perr != nil {
				return nil, perr
			}
			m.Depth = max(m.Depth, sh.deepest)
			m.ZeroTimestamp = m.ZeroTimestamp || sh.zeroTS
			m.Body, sections = doc, rest
		case sectionDocSequence:
			if len(m.Sequences) >= maxDocumentSequences {
				return nil, &ProtocolError{Fatal: true, Err: errs.New(CodeTooManyDocumentSequences,
					"Too many document sequences in OP_MSG")}
			}
			seq, rest, perr := parseSequence(sections, m.Sequences, m, mem)
			if perr != nil {
				return nil, perr
			}
			m.Sequences, sections = append(m.Sequences, seq), rest
		case sectionSecurityToken:
			return nil, badMessage(errs.Unauthorized, "Unsupported Security Token provided")
		default:
			return nil, badMessage(errs.Location40432, "Unknown section kind %d", kind)
		}
	}
	if !haveBody {
		return nil, badMessage(errs.Location40587, "OP_MSG messages must have a body")
	}
	for _, s := range m.Sequences {
		if bodyHasPath(m.Body, s.Identifier) {
			return nil, duplicateFieldError(s.Identifier)
		}
	}
	m.namesChecked = true
	m.mem = mem
	return m, nil
}

// parseSequence decodes a kind-1 section from b (just after the kind byte).
// m's Depth is raised to the sequence documents' depth as merged (their
// own plus 2), and its ZeroTimestamp set when one of them holds one.
// The first sequence of a message read into pooled memory mem takes the
// slice mem keeps for its documents when it is large enough, and leaves
// its own there otherwise.
func parseSequence(b []byte, prev []Sequence, m *Msg, mem *msgMem) (Sequence, []byte, *ProtocolError) {
	var sh shape
	size, ok := int32At(b)
	if !ok {
		return Sequence{}, nil, badMessage(errs.ProtocolError,
			"OP_MSG document sequence truncated")
	}
	if size < 5 || size > len(b) {
		return Sequence{}, nil, badMessage(errs.ProtocolError,
			"OP_MSG document sequence size %d is invalid: %d bytes left in the message", size, len(b))
	}
	sec, rest := b[4:size], b[size:]
	nul := bytes.IndexByte(sec, 0)
	if nul < 0 {
		return Sequence{}, nil, badMessage(errs.ProtocolError,
			"OP_MSG document sequence identifier is not NUL-terminated")
	}
	id, what := sequenceNames(sec[:nul])
	seq := Sequence{Identifier: id}
	for _, p := range prev {
		if p.Identifier == seq.Identifier {
			return Sequence{}, nil, badMessage(errs.Location40431,
				"Duplicate document sequence: %s", seq.Identifier)
		}
	}
	docs := sec[nul+1:]
	if len(docs) > 0 {
		n := countDocs(docs)
		if mem != nil && len(prev) == 0 && cap(mem.docs) >= n {
			seq.Documents = mem.docs[:0]
		} else {
			seq.Documents = make([]bsoncore.Document, 0, n)
		}
		if mem != nil && len(prev) == 0 {
			defer func() { mem.docs = seq.Documents[:0] }()
		}
	}
	for len(docs) > 0 {
		doc, r, perr := readDocumentShape(docs, what, &sh)
		if perr != nil {
			return Sequence{}, nil, perr
		}
		seq.Documents, docs = append(seq.Documents, doc), r
	}
	if len(seq.Documents) > 0 && sh.deepest+2 > m.Depth {
		m.Depth = sh.deepest + 2
	}
	seq.IDFirst = !sh.idNotFirst
	m.ZeroTimestamp = m.ZeroTimestamp || sh.zeroTS
	return seq, rest, nil
}

// sequenceNames returns a document sequence's identifier as a string and
// the name its errors give it, without allocating for the identifiers
// drivers send.
func sequenceNames(id []byte) (string, string) {
	switch string(id) {
	case "documents":
		return "documents", "OP_MSG document sequence documents"
	case "updates":
		return "updates", "OP_MSG document sequence updates"
	case "deletes":
		return "deletes", "OP_MSG document sequence deletes"
	}
	s := string(id)
	return s, "OP_MSG document sequence " + s
}

// countDocs estimates the number of documents in a sequence payload by
// walking length prefixes, so the slice is allocated once.
func countDocs(b []byte) int {
	n := 0
	for len(b) >= 5 {
		l, _ := int32At(b)
		if l < 5 || l > len(b) {
			break
		}
		n++
		b = b[l:]
	}
	return n + 1
}

// bodyHasPath reports whether body has a field at the (possibly dotted)
// path name, as mongod checks when matching sequences against the body.
func bodyHasPath(body bsoncore.Document, name string) bool {
	if !strings.Contains(name, ".") {
		_, err := body.LookupErr(name)
		return err == nil
	}
	_, err := body.LookupErr(strings.Split(name, ".")...)
	return err == nil
}

// duplicateFieldError is mongod's error for a sequence named like a body field.
func duplicateFieldError(name string) *ProtocolError {
	return badMessage(errs.Location40433,
		"Duplicate field between body and document sequence %s", name)
}

// Merged returns the command as handlers see it: the body followed by one
// array field per document sequence, named by its identifier, holding the
// sequence's documents in order. Without sequences it returns Body itself.
// It fails if a sequence identifier duplicates a body field or another
// sequence.
func (m *Msg) Merged() (bsoncore.Document, error) {
	if len(m.Sequences) == 0 {
		return m.Body, nil
	}
	if err := m.checkSequences(); err != nil {
		return nil, err
	}
	size := len(m.Body)
	for _, s := range m.Sequences {
		size += 1 + len(s.Identifier) + 1 + 5
		for j, d := range s.Documents {
			size += 1 + decimalLen(j) + 1 + len(d)
		}
	}
	out := make([]byte, 0, size)
	out = append(out, m.Body[:len(m.Body)-1]...)
	var key []byte
	for _, s := range m.Sequences {
		var arr int32
		arr, out = bsoncore.AppendArrayElementStart(out, s.Identifier)
		for j, d := range s.Documents {
			key = appendDecimal(key[:0], j)
			out = append(out, byte(bsoncore.TypeEmbeddedDocument))
			out = append(out, key...)
			out = append(out, 0)
			out = append(out, d...)
		}
		var err error
		if out, err = bsoncore.AppendArrayEnd(out, arr); err != nil {
			return nil, errs.New(errs.InternalError, "building merged command: %v", err)
		}
	}
	out = append(out, 0)
	binary.LittleEndian.PutUint32(out, uint32(len(out)))
	return out, nil
}

// Command returns the command as handlers see it. When the one document
// sequence is named keep (a write command's statements: insert's
// documents, update's updates, delete's deletes, which their handlers
// read from the sequence) it is the body alone, as mongod's
// OpMsgRequest keeps it: the statements are not copied into a merged
// document (for a bulk insert, a copy of every document), and the
// command that logs, the profiler and currentOp show is the body's.
// Otherwise it is Merged's.
func (m *Msg) Command(keep string) (bsoncore.Document, error) {
	if keep == "" || len(m.Sequences) != 1 || m.Sequences[0].Identifier != keep {
		return m.Merged()
	}
	if err := m.checkSequences(); err != nil {
		return nil, err
	}
	return m.Body, nil
}

// checkSequences refuses a message whose body is too short to be a
// document or whose sequences are named like a body field or like each
// other.
func (m *Msg) checkSequences() error {
	if len(m.Body) < 5 {
		return errs.New(errs.InvalidBSON, "OP_MSG body is missing or truncated")
	}
	if m.namesChecked {
		return nil
	}
	for i, s := range m.Sequences {
		if bodyHasPath(m.Body, s.Identifier) {
			return duplicateFieldError(s.Identifier).Err
		}
		for _, p := range m.Sequences[:i] {
			if p.Identifier == s.Identifier {
				return errs.New(errs.Location40431, "Duplicate document sequence: %s", s.Identifier)
			}
		}
	}
	return nil
}

// decimalLen returns the number of decimal digits of a non-negative int.
func decimalLen(i int) int {
	n := 1
	for i >= 10 {
		i /= 10
		n++
	}
	return n
}

// appendDecimal appends the decimal form of a non-negative int.
func appendDecimal(dst []byte, i int) []byte {
	var buf [20]byte
	p := len(buf)
	for {
		p--
		buf[p] = byte('0' + i%10)
		i /= 10
		if i == 0 {
			break
		}
	}
	return append(dst, buf[p:]...)
}
