// The benchmark's load driver: sends ResourceProvider requests that the bench
// (bench/run.ts) encoded beforehand with @pulumi/pulumi's generated stubs, as
// raw bytes over grpc-go, and times each answer. It parses nothing it sends
// or receives, so the client's CPU per request is a small fraction of the
// Node client's and the plugins get the machine's two cores to themselves.
//
// It is driven over stdin/stdout, one JSON object per line each way:
//
//	{"op":"connect","conn":"a","addr":"127.0.0.1:4711"}        → {"ok":true}
//	{"op":"set","set":"s","requests":[{"method":"/pulumirpc.ResourceProvider/Create","body":"<base64>"}],
//	 "units":[[0],[0]]}                                         → {"ok":true}
//	{"op":"run","conn":"a","set":"s","offset":0,"n":500,"concurrency":32,
//	 "boundMs":90000,"marks":[250,500]}                         → {"mark":250} … then the result
//	{"op":"close","conn":"a"} / {"op":"drop","set":"s"}         → {"ok":true}
//
// A unit is a list of requests sent one after another (the cycle's check →
// create → diff → update → delete); a unit stops at its first failed call. A
// failed command answers {"error":"…"}.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/connectivity"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
)

// rawCodec hands bytes to the transport as they are. It is named "proto" so
// that the call's content-type stays plain application/grpc, which every
// plugin under test accepts.
type rawCodec struct{}

func (rawCodec) Marshal(v any) ([]byte, error) {
	b, ok := v.(*[]byte)
	if !ok {
		return nil, fmt.Errorf("raw codec: cannot send %T", v)
	}
	return *b, nil
}

func (rawCodec) Unmarshal(data []byte, v any) error {
	b, ok := v.(*[]byte)
	if !ok {
		return fmt.Errorf("raw codec: cannot receive into %T", v)
	}
	*b = data
	return nil
}

func (rawCodec) Name() string { return "proto" }

type request struct {
	Method string `json:"method"`
	Body   []byte `json:"body"`
}

type requestSet struct {
	Requests []request `json:"requests"`
	Units    [][]int   `json:"units"`
}

type command struct {
	Op          string    `json:"op"`
	Conn        string    `json:"conn"`
	Addr        string    `json:"addr"`
	Set         string    `json:"set"`
	Requests    []request `json:"requests"`
	Units       [][]int   `json:"units"`
	Offset      int       `json:"offset"`
	N           int       `json:"n"`
	Concurrency int       `json:"concurrency"`
	BoundMs     float64   `json:"boundMs"`
	Marks       []int     `json:"marks"`
}

type runResult struct {
	WallMs     float64   `json:"wallMs"`
	Done       int       `json:"done"`
	Aborted    bool      `json:"aborted,omitempty"`
	OK         int       `json:"ok"`
	Failed     int       `json:"failed"`
	FirstError string    `json:"firstError,omitempty"`
	Latencies  []float64 `json:"latencies"`
	CPUMs      float64   `json:"cpuMs"`
}

type driver struct {
	out   *json.Encoder
	outMu sync.Mutex
	conns map[string]*grpc.ClientConn
	sets  map[string]*requestSet
}

func (d *driver) send(v any) {
	d.outMu.Lock()
	defer d.outMu.Unlock()
	if err := d.out.Encode(v); err != nil {
		// The bench is gone: nothing is left to report to.
		os.Exit(1)
	}
}

func cpuMs() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return math.NaN()
	}
	ms := func(t syscall.Timeval) float64 { return float64(t.Sec)*1000 + float64(t.Usec)/1000 }
	return ms(ru.Utime) + ms(ru.Stime)
}

func (d *driver) connect(c command) error {
	if _, taken := d.conns[c.Conn]; taken {
		return fmt.Errorf("connection %q is already open", c.Conn)
	}
	conn, err := grpc.NewClient("passthrough:///"+c.Addr,
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(
			grpc.ForceCodec(rawCodec{}),
			grpc.MaxCallRecvMsgSize(512<<20),
			grpc.MaxCallSendMsgSize(512<<20),
		),
	)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn.Connect()
	for {
		state := conn.GetState()
		if state == connectivity.Ready {
			break
		}
		if !conn.WaitForStateChange(ctx, state) {
			conn.Close()
			return fmt.Errorf("no connection to %s within 10 s (last state %s)", c.Addr, state)
		}
	}
	d.conns[c.Conn] = conn
	return nil
}

func (d *driver) set(c command) error {
	for i, u := range c.Units {
		for _, r := range u {
			if r < 0 || r >= len(c.Requests) {
				return fmt.Errorf("unit %d names request %d of %d", i, r, len(c.Requests))
			}
		}
	}
	d.sets[c.Set] = &requestSet{Requests: c.Requests, Units: c.Units}
	return nil
}

// run sends units offset … offset+n-1, at most `concurrency` at a time. When
// the bound is reached no further unit starts and what was measured is
// answered at once; calls still in flight are left to the bench, which stops
// the plugin (that answers them).
func (d *driver) run(c command) (*runResult, error) {
	conn, ok := d.conns[c.Conn]
	if !ok {
		return nil, fmt.Errorf("no connection %q", c.Conn)
	}
	set, ok := d.sets[c.Set]
	if !ok {
		return nil, fmt.Errorf("no request set %q", c.Set)
	}
	if c.Offset < 0 || c.N < 0 || c.Offset+c.N > len(set.Units) {
		return nil, fmt.Errorf("units %d…%d asked of a set of %d", c.Offset, c.Offset+c.N-1, len(set.Units))
	}
	if c.Concurrency < 1 {
		return nil, fmt.Errorf("concurrency %d", c.Concurrency)
	}
	marks := map[int]bool{}
	for _, m := range c.Marks {
		marks[m] = true
	}

	var mu sync.Mutex
	res := &runResult{Latencies: make([]float64, 0, c.N*4)}
	next := 0
	stopped := false
	finished := make(chan struct{})
	cpu0 := cpuMs()
	start := time.Now()

	call := func(r request) bool {
		var reply []byte
		t0 := time.Now()
		err := conn.Invoke(context.Background(), r.Method, &r.Body, &reply)
		ms := float64(time.Since(t0).Nanoseconds()) / 1e6
		mu.Lock()
		defer mu.Unlock()
		res.Latencies = append(res.Latencies, ms)
		if err == nil {
			res.OK++
			return true
		}
		res.Failed++
		if res.FirstError == "" {
			st := status.Convert(err)
			method := r.Method[strings.LastIndex(r.Method, "/")+1:]
			res.FirstError = fmt.Sprintf("%s: code %d: %s", strings.ToLower(method[:1])+method[1:], st.Code(), strings.SplitN(st.Message(), "\n", 2)[0])
		}
		return false
	}
	loop := func() {
		for {
			mu.Lock()
			if stopped || next >= c.N {
				mu.Unlock()
				return
			}
			unit := set.Units[c.Offset+next]
			next++
			mu.Unlock()
			for _, r := range unit {
				if !call(set.Requests[r]) {
					break
				}
			}
			mu.Lock()
			res.Done++
			done := res.Done
			mu.Unlock()
			if marks[done] {
				d.send(map[string]int{"mark": done})
			}
		}
	}
	workers := min(c.Concurrency, c.N)
	var wg sync.WaitGroup
	wg.Add(workers)
	for i := 0; i < workers; i++ {
		go func() {
			defer wg.Done()
			loop()
		}()
	}
	go func() {
		wg.Wait()
		close(finished)
	}()
	bound := time.NewTimer(time.Duration(c.BoundMs * float64(time.Millisecond)))
	defer bound.Stop()
	select {
	case <-finished:
	case <-bound.C:
	}
	mu.Lock()
	defer mu.Unlock()
	select {
	case <-finished:
	default:
		stopped = true
		res.Aborted = true
	}
	snapshot := *res
	snapshot.Latencies = append([]float64(nil), res.Latencies...)
	snapshot.WallMs = float64(time.Since(start).Nanoseconds()) / 1e6
	snapshot.CPUMs = cpuMs() - cpu0
	return &snapshot, nil
}

func main() {
	d := &driver{out: json.NewEncoder(os.Stdout), conns: map[string]*grpc.ClientConn{}, sets: map[string]*requestSet{}}
	in := json.NewDecoder(bufio.NewReaderSize(os.Stdin, 1<<20))
	for {
		var c command
		if err := in.Decode(&c); err != nil {
			// End of input: the bench is done (or gone).
			for _, conn := range d.conns {
				conn.Close()
			}
			return
		}
		var err error
		switch c.Op {
		case "connect":
			err = d.connect(c)
		case "set":
			err = d.set(c)
		case "run":
			var res *runResult
			if res, err = d.run(c); err == nil {
				d.send(res)
				continue
			}
		case "close":
			if conn, ok := d.conns[c.Conn]; ok {
				conn.Close()
				delete(d.conns, c.Conn)
			}
		case "drop":
			delete(d.sets, c.Set)
		default:
			err = fmt.Errorf("unknown op %q", c.Op)
		}
		if err != nil {
			d.send(map[string]string{"error": fmt.Sprintf("%s: %v", c.Op, err)})
		} else {
			d.send(map[string]bool{"ok": true})
		}
	}
}
