package rod

import (
	"context"
	"fmt"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"

	"github.com/rpa-dev/rpa/drivers"
)

var _ drivers.StorageStater = (*browser)(nil)

// StorageState implements drivers.StorageStater: the cookies of the
// browser's context (Storage.getCookies), and each origin's local storage
// read in a tab whose every request is answered with a blank page by the
// tab itself (Fetch, through rod's hijack router), as Playwright reads a
// storage state.
func (b *browser) StorageState(ctx context.Context, origins []string) (*drivers.StorageState, error) {
	if b.isClosed() {
		return nil, b.goneErr()
	}
	res, err := proto.StorageGetCookies{BrowserContextID: b.bctx}.Call(b.rb.Context(ctx))
	if err != nil {
		return nil, fmt.Errorf("reading cookies: %w", err)
	}
	st := &drivers.StorageState{Cookies: []drivers.Cookie{}, Origins: []drivers.OriginStorage{}}
	for _, c := range res.Cookies {
		exp := float64(c.Expires)
		if c.Session {
			exp = -1
		}
		st.Cookies = append(st.Cookies, drivers.Cookie{Name: c.Name, Value: c.Value, Domain: c.Domain, Path: c.Path,
			Expires: exp, HTTPOnly: c.HTTPOnly, Secure: c.Secure, SameSite: string(c.SameSite)})
	}
	for _, o := range origins {
		var items []drivers.NameValue
		err := b.atOrigin(ctx, o, func(p *page) error {
			v, err := p.Eval(ctx, `() => Object.keys(localStorage).map(k => [k, localStorage.getItem(k)])`)
			if err != nil {
				return err
			}
			list, _ := v.([]any)
			for _, e := range list {
				if kv, ok := e.([]any); ok && len(kv) == 2 {
					n, _ := kv[0].(string)
					val, _ := kv[1].(string)
					items = append(items, drivers.NameValue{Name: n, Value: val})
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		if len(items) > 0 {
			st.Origins = append(st.Origins, drivers.OriginStorage{Origin: o, LocalStorage: items})
		}
	}
	return st, nil
}

// SetStorageState implements drivers.StorageStater.
func (b *browser) SetStorageState(ctx context.Context, st *drivers.StorageState) error {
	if b.isClosed() {
		return b.goneErr()
	}
	if len(st.Cookies) > 0 {
		params := make([]*proto.NetworkCookieParam, 0, len(st.Cookies))
		for _, c := range st.Cookies {
			p := &proto.NetworkCookieParam{Name: c.Name, Value: c.Value, Domain: c.Domain, Path: c.Path,
				Secure: c.Secure, HTTPOnly: c.HTTPOnly, SameSite: proto.NetworkCookieSameSite(c.SameSite)}
			if c.Expires > 0 {
				p.Expires = proto.TimeSinceEpoch(c.Expires)
			}
			params = append(params, p)
		}
		if err := (proto.StorageSetCookies{Cookies: params, BrowserContextID: b.bctx}).Call(b.rb.Context(ctx)); err != nil {
			return fmt.Errorf("setting cookies: %w", err)
		}
	}
	for _, o := range st.Origins {
		if len(o.LocalStorage) == 0 {
			continue
		}
		pairs := make([]any, len(o.LocalStorage))
		for i, kv := range o.LocalStorage {
			pairs[i] = []any{kv.Name, kv.Value}
		}
		err := b.atOrigin(ctx, o.Origin, func(p *page) error {
			_, err := p.Eval(ctx, `(pairs) => { for (const [k, v] of pairs) localStorage.setItem(k, v); return true }`, pairs)
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// atOrigin runs f in a new tab showing a blank document of origin: every
// request of the tab is answered by the tab's own hijack router, so the
// site is never asked.
func (b *browser) atOrigin(ctx context.Context, origin string, f func(p *page) error) error {
	o, err := drivers.Origin(origin)
	if err != nil {
		return err
	}
	pg, err := b.NewPage(ctx, "")
	if err != nil {
		return err
	}
	defer pg.Close()
	p := pg.(*page)
	router := p.rp.Context(ctx).HijackRequests()
	if err := router.Add("*", "", func(h *rod.Hijack) {
		h.Response.SetHeader("Content-Type", "text/html; charset=utf-8")
		h.Response.SetBody("<!doctype html><title>rpa</title>")
	}); err != nil {
		return err
	}
	go router.Run()
	defer func() { _ = router.Stop() }()
	if err := p.Navigate(ctx, o+"/"); err != nil {
		return fmt.Errorf("%s: %w", o, err)
	}
	return f(p)
}
