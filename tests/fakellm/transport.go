package fakellm

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"time"
)

// RoundTripper answers an HTTP client's requests in memory, with no listener: answer picks the
// reply for each decoded request (ctx is the request's context, so a caller can pass the
// answer it wants along with the call). It is for code that runs where loopback networking
// cannot, such as a testing/synctest bubble, whose fake clock a network wait would stall.
//
// The reply is played as the server plays it, so bodies, errors, headers, latency and hangs
// (released when the request's context ends) are the same; dropped connections are not
// possible without a connection and come back as a transport error. Nothing is recorded.
func RoundTripper(answer func(ctx context.Context, r Request) Reply) http.RoundTripper {
	return roundTripper{answer: answer, srv: New(Config{})}
}

type roundTripper struct {
	answer func(context.Context, Request) Reply
	srv    *Server
}

func (t roundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		b, err := io.ReadAll(io.LimitReader(req.Body, MaxRequestBody+1))
		req.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("fakellm: read request body: %w", err)
		}
		body = b
	}
	ep, ok := t.srv.route(req.URL.Path)
	if !ok {
		return nil, fmt.Errorf("fakellm: no endpoint at %s %s", req.Method, req.URL.Path)
	}
	rec := Request{Received: time.Now(), Method: req.Method, Path: req.URL.Path, Endpoint: ep,
		Header: req.Header.Clone(), Body: body}
	if err := rec.decodeBody(); err != nil {
		rec.DecodeError = err.Error()
	}
	reply := t.answer(req.Context(), rec)
	if reply.Drop != NoDrop {
		return nil, fmt.Errorf("fakellm: connection dropped (scripted)")
	}
	w := httptest.NewRecorder()
	outcome, _ := t.srv.answer(w, req, ep, rec, reply)
	if outcome == OutcomeCanceled {
		if err := req.Context().Err(); err != nil {
			return nil, err
		}
		return nil, context.Canceled
	}
	res := w.Result()
	res.Request = req
	res.Body = io.NopCloser(bytes.NewReader(w.Body.Bytes()))
	return res, nil
}
