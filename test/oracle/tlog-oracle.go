// An independent oracle for the log tests: Go's checksum-database packages
// (golang.org/x/mod/sumdb/tlog and sumdb/note, from Debian's golang-golang-x-mod-dev)
// compute roots, proofs, tiles and signed notes for the same log the TypeScript code builds,
// and check the TypeScript side's proofs and notes. Written for this project; it only calls
// those packages. Reads one JSON job on stdin and writes one JSON answer on stdout.
//
// Entry i of the log is the UTF-8 text "cards log entry <i>" repeated (i mod 7)+1 times, so
// entries differ in length (the TypeScript test builds the same entries).
package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

type job struct {
	Entries     int64      `json:"entries"`
	Sizes       []int64    `json:"sizes"`
	Inclusion   [][2]int64 `json:"inclusion"`
	Consistency [][2]int64 `json:"consistency"`
	Tiles       [][4]int64 `json:"tiles"` // level, index, width, tree size
	// Proofs made by the other side, for Go to check.
	CheckInclusion   []checkIncl `json:"checkInclusion"`
	CheckConsistency []checkCons `json:"checkConsistency"`
	Seed             string      `json:"seed"` // base64 32-byte Ed25519 seed for the note key
	KeyName          string      `json:"keyName"`
	Notes            []string    `json:"notes"`     // texts for Go to sign
	OpenNotes        []string    `json:"openNotes"` // signed notes for Go to verify
}

type checkIncl struct {
	Index int64    `json:"index"`
	Size  int64    `json:"size"`
	Proof []string `json:"proof"`
}

type checkCons struct {
	Old   int64    `json:"old"`
	New   int64    `json:"new"`
	Proof []string `json:"proof"`
}

type answer struct {
	Roots            []string   `json:"roots"`
	Inclusion        [][]string `json:"inclusion"`
	Consistency      [][]string `json:"consistency"`
	Tiles            []string   `json:"tiles"`
	TilePaths        []string   `json:"tilePaths"`
	CheckInclusion   []string   `json:"checkInclusion"` // "ok" or Go's error
	CheckConsistency []string   `json:"checkConsistency"`
	Skey             string     `json:"skey"`
	Vkey             string     `json:"vkey"`
	Signed           []string   `json:"signed"`
	Opened           []string   `json:"opened"` // "ok" or Go's error
}

func entry(i int64) []byte {
	return []byte(strings.Repeat(fmt.Sprintf("cards log entry %d", i), int(i%7)+1))
}

type hashes []tlog.Hash

func (h hashes) ReadHashes(indexes []int64) ([]tlog.Hash, error) {
	out := make([]tlog.Hash, len(indexes))
	for i, x := range indexes {
		out[i] = h[x]
	}
	return out, nil
}

func b64(h tlog.Hash) string { return base64.StdEncoding.EncodeToString(h[:]) }

func b64s(p []tlog.Hash) []string {
	out := make([]string, len(p))
	for i, h := range p {
		out[i] = b64(h)
	}
	return out
}

func unb64s(s []string) []tlog.Hash {
	out := make([]tlog.Hash, len(s))
	for i, x := range s {
		b, err := base64.StdEncoding.DecodeString(x)
		must(err)
		copy(out[i][:], b)
	}
	return out
}

func errText(err error) string {
	if err == nil {
		return "ok"
	}
	return err.Error()
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func main() {
	var j job
	must(json.NewDecoder(os.Stdin).Decode(&j))
	var stored hashes
	for i := int64(0); i < j.Entries; i++ {
		add, err := tlog.StoredHashes(i, entry(i), stored)
		must(err)
		stored = append(stored, add...)
	}
	var a answer
	for _, n := range j.Sizes {
		h, err := tlog.TreeHash(n, stored)
		must(err)
		a.Roots = append(a.Roots, b64(h))
	}
	for _, q := range j.Inclusion {
		p, err := tlog.ProveRecord(q[1], q[0], stored)
		must(err)
		a.Inclusion = append(a.Inclusion, b64s(p))
	}
	for _, q := range j.Consistency {
		p, err := tlog.ProveTree(q[1], q[0], stored)
		must(err)
		a.Consistency = append(a.Consistency, b64s(p))
	}
	for _, q := range j.Tiles {
		t := tlog.Tile{H: 8, L: int(q[0]), N: q[1], W: int(q[2])}
		data, err := tlog.ReadTileData(t, stored)
		must(err)
		a.Tiles = append(a.Tiles, base64.StdEncoding.EncodeToString(data))
		a.TilePaths = append(a.TilePaths, t.Path())
	}
	for _, c := range j.CheckInclusion {
		root, err := tlog.TreeHash(c.Size, stored)
		must(err)
		leaf := tlog.RecordHash(entry(c.Index))
		a.CheckInclusion = append(a.CheckInclusion,
			errText(tlog.CheckRecord(unb64s(c.Proof), c.Size, root, c.Index, leaf)))
	}
	for _, c := range j.CheckConsistency {
		oldRoot, err := tlog.TreeHash(c.Old, stored)
		must(err)
		newRoot, err := tlog.TreeHash(c.New, stored)
		must(err)
		a.CheckConsistency = append(a.CheckConsistency,
			errText(tlog.CheckTree(unb64s(c.Proof), c.New, newRoot, c.Old, oldRoot)))
	}
	if j.Seed != "" {
		seed, err := base64.StdEncoding.DecodeString(j.Seed)
		must(err)
		skey, vkey, err := note.GenerateKey(bytes.NewReader(seed), j.KeyName)
		must(err)
		a.Skey, a.Vkey = skey, vkey
		signer, err := note.NewSigner(skey)
		must(err)
		verifier, err := note.NewVerifier(vkey)
		must(err)
		for _, text := range j.Notes {
			msg, err := note.Sign(&note.Note{Text: text}, signer)
			must(err)
			a.Signed = append(a.Signed, string(msg))
		}
		for _, msg := range j.OpenNotes {
			_, err := note.Open([]byte(msg), note.VerifierList(verifier))
			a.Opened = append(a.Opened, errText(err))
		}
	}
	must(json.NewEncoder(os.Stdout).Encode(a))
}
