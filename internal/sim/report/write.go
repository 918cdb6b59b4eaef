package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/lodedb/lode/internal/sim"
)

// Files written by WriteAll.
const (
	JSONFile  = "report.json"
	HTMLFile  = "report.html"
	TableFile = "report.txt"
)

// WriteAll writes report.json, report.html and report.txt (the table)
// into dir, creating it.
func WriteAll(dir string, rep *sim.Report) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	js, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return fmt.Errorf("report: json: %w", err)
	}
	var html, table bytes.Buffer
	if err := WriteHTML(&html, rep); err != nil {
		return err
	}
	if err := WriteTable(&table, rep); err != nil {
		return err
	}
	for name, data := range map[string][]byte{JSONFile: js, HTMLFile: html.Bytes(), TableFile: table.Bytes()} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return fmt.Errorf("report: %w", err)
		}
	}
	return nil
}
