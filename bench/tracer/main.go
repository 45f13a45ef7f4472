// The whole-command trace's instrument (bench/trace-run.ts, docs/performance.md
// "Whole-command trace"). One binary placed under two names in a trace
// directory, the same for our plugin and the reference:
//
//   - as `pulumi` (the CLI the Automation API runs): records when the command
//     starts and ends, running the real CLI as its child with the same stdio.
//   - as `pulumi-resource-pulumi-python` (the plugin the engine runs): records
//     its own exec, runs the real plugin as its child (same stdin, so the
//     engine's stdin reaches it unchanged; same process group, so the engine's
//     SIGINT to the group reaches it too), reads its port line, serves that port
//     through a TCP proxy that reads the HTTP/2 frames going past (each call's
//     method, when its request headers passed and when its response ended),
//     and records the SIGINT, the child's exit and the end of each of its pipes.
//
// The real program is `<dir of argv[0]>/real/<name>`. Events are JSON lines
// appended to `<dir of argv[0]>/real/events.jsonl`, times in Unix nanoseconds.
package main

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/net/http2/hpack"
)

var (
	events   *os.File
	eventsMu sync.Mutex
	role     string
)

func record(ev string, fields map[string]any) {
	line := map[string]any{"ev": ev, "t": time.Now().UnixNano(), "role": role, "pid": os.Getpid()}
	for k, v := range fields {
		line[k] = v
	}
	b, _ := json.Marshal(line)
	b = append(b, '\n')
	eventsMu.Lock()
	defer eventsMu.Unlock()
	if events != nil {
		_, _ = events.Write(b)
	}
}

func main() {
	t0 := time.Now().UnixNano()
	self, err := filepath.Abs(os.Args[0])
	if err != nil {
		fail(err)
	}
	name := filepath.Base(self)
	realDir := filepath.Join(filepath.Dir(self), "real")
	real := filepath.Join(realDir, name)
	events, err = os.OpenFile(filepath.Join(realDir, "events.jsonl"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		fail(err)
	}
	if name == "pulumi" {
		role = "cli"
		os.Exit(runCli(t0, real))
	}
	role = "plugin"
	os.Exit(runPlugin(t0, real))
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "bench tracer: %v\n", err)
	os.Exit(70)
}

func exitCode(state *os.ProcessState) int {
	if state == nil {
		return 70
	}
	if ws, ok := state.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return state.ExitCode()
}

func runCli(t0 int64, real string) int {
	cmd := exec.Command(real, os.Args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	// The Automation API's own signals go to the CLI as they would.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	record("cli_start", map[string]any{"at": t0, "args": os.Args[1:]})
	if err := cmd.Start(); err != nil {
		fail(err)
	}
	go func() {
		for s := range sigs {
			_ = cmd.Process.Signal(s)
		}
	}()
	state, _ := cmd.Process.Wait()
	code := exitCode(state)
	record("cli_end", map[string]any{"code": code, "args": os.Args[1:]})
	return code
}

func runPlugin(t0 int64, real string) int {
	record("exec", map[string]any{"at": t0})
	cmd := exec.Command(real, os.Args[1:]...)
	cmd.Stdin = os.Stdin
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		fail(err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		fail(err)
	}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	if err := cmd.Start(); err != nil {
		fail(err)
	}
	record("child_started", map[string]any{"child": cmd.Process.Pid})
	go func() {
		for s := range sigs {
			record("signal", map[string]any{"signal": s.String()})
		}
	}()
	var pipes sync.WaitGroup
	pipes.Add(2)
	go func() {
		defer pipes.Done()
		r := bufio.NewReader(stdout)
		line, err := r.ReadString('\n')
		if err != nil && line == "" {
			record("stdout_eof", map[string]any{"before_port": true})
			return
		}
		record("port", nil)
		port, perr := strconv.Atoi(strings.TrimSpace(line))
		if perr != nil {
			// Not a port: pass it on as it came.
			_, _ = os.Stdout.WriteString(line)
		} else {
			ln, lerr := net.Listen("tcp", "127.0.0.1:0")
			if lerr != nil {
				fail(lerr)
			}
			go serveProxy(ln, port)
			fmt.Fprintf(os.Stdout, "%d\n", ln.Addr().(*net.TCPAddr).Port)
			record("port_out", nil)
		}
		_, _ = io.Copy(os.Stdout, r)
		record("stdout_eof", nil)
	}()
	go func() {
		defer pipes.Done()
		_, _ = io.Copy(os.Stderr, stderr)
		record("stderr_eof", nil)
	}()
	state, _ := cmd.Process.Wait()
	code := exitCode(state)
	record("exit", map[string]any{"code": code})
	pipes.Wait()
	record("done", nil)
	return code
}

var connSeq struct {
	sync.Mutex
	n int
}

func serveProxy(ln net.Listener, port int) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go func() {
			connSeq.Lock()
			connSeq.n++
			id := connSeq.n
			connSeq.Unlock()
			b, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
			if err != nil {
				record("proxy_dial_failed", map[string]any{"conn": id, "error": err.Error()})
				c.Close()
				return
			}
			if tc, ok := b.(*net.TCPConn); ok {
				_ = tc.SetNoDelay(true)
			}
			if tc, ok := c.(*net.TCPConn); ok {
				_ = tc.SetNoDelay(true)
			}
			record("conn", map[string]any{"conn": id})
			done := make(chan struct{}, 2)
			go func() { pump(c, b, id, true); done <- struct{}{} }()
			go func() { pump(b, c, id, false); done <- struct{}{} }()
			<-done
			c.Close()
			b.Close()
			<-done
			record("conn_closed", map[string]any{"conn": id})
		}()
	}
}

const preface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"

// pump copies src to dst frame by frame, recording each call's request headers
// (toServer) and the response's end (END_STREAM on HEADERS or DATA, or RST_STREAM).
func pump(src, dst net.Conn, conn int, toServer bool) {
	r := bufio.NewReaderSize(src, 64<<10)
	if toServer {
		p := make([]byte, len(preface))
		if _, err := io.ReadFull(r, p); err != nil {
			return
		}
		if _, err := dst.Write(p); err != nil {
			return
		}
		if string(p) != preface {
			_, _ = io.Copy(dst, r)
			return
		}
	}
	dec := hpack.NewDecoder(4096, nil)
	var block []byte
	var blockStream uint32
	var blockEnd bool
	parsing := true
	hdr := make([]byte, 9)
	for {
		if _, err := io.ReadFull(r, hdr); err != nil {
			return
		}
		length := int(hdr[0])<<16 | int(hdr[1])<<8 | int(hdr[2])
		typ, flags := hdr[3], hdr[4]
		stream := binary.BigEndian.Uint32(hdr[5:9]) & 0x7fffffff
		payload := make([]byte, length)
		if _, err := io.ReadFull(r, payload); err != nil {
			return
		}
		// Look, then forward: each event is recorded before the other side can act on the frame, so
		// causes come before their effects in the events (an answer's end before the next call it
		// allows). Reading a frame's headers takes microseconds.
		if parsing {
			parsing = look(typ, flags, stream, payload, toServer, conn, dec, &block, &blockStream, &blockEnd)
		}
		frame := append(hdr[:9:9], payload...)
		if _, err := dst.Write(frame); err != nil {
			return
		}
	}
}

// look records what one frame says about the calls; false once the headers cannot be read any more.
func look(typ, flags byte, stream uint32, payload []byte, toServer bool, conn int, dec *hpack.Decoder, block *[]byte, blockStream *uint32, blockEnd *bool) bool {
	switch typ {
	case 0x0: // DATA
		if !toServer && flags&0x1 != 0 {
			record("call_end", map[string]any{"conn": conn, "stream": stream, "how": "data"})
		}
	case 0x1, 0x9: // HEADERS, CONTINUATION
		frag := payload
		if typ == 0x1 {
			*blockStream = stream
			*blockEnd = flags&0x1 != 0
			*block = (*block)[:0]
			if flags&0x8 != 0 && len(frag) > 0 { // PADDED
				pad := int(frag[0])
				frag = frag[1:]
				if pad <= len(frag) {
					frag = frag[:len(frag)-pad]
				}
			}
			if flags&0x20 != 0 && len(frag) >= 5 { // PRIORITY
				frag = frag[5:]
			}
		}
		*block = append(*block, frag...)
		if flags&0x4 == 0 { // not END_HEADERS yet
			return true
		}
		fields, err := dec.DecodeFull(*block)
		if err != nil {
			record("proxy_hpack_error", map[string]any{"conn": conn, "error": err.Error()})
			return false
		}
		if toServer {
			method := ""
			for _, f := range fields {
				if f.Name == ":path" {
					method = f.Value
				}
			}
			record("call_start", map[string]any{"conn": conn, "stream": *blockStream, "method": method})
		} else if *blockEnd {
			status := ""
			for _, f := range fields {
				if f.Name == "grpc-status" {
					status = f.Value
				}
			}
			record("call_end", map[string]any{"conn": conn, "stream": *blockStream, "how": "trailers", "grpc_status": status})
		}
	case 0x3: // RST_STREAM
		record("call_end", map[string]any{"conn": conn, "stream": stream, "how": "reset", "from_client": toServer})
	}
	return true
}
