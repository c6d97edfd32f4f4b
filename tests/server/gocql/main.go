// The Go driver (Debian's golang-github-gocql-gocql-dev) against cassette serve:
// the basics a Go application needs. Prints "gocql: N passed, N failed".
//
//	go run main.go HOST PORT [AUTH_PORT]
//
// AUTH_PORT: a server started with --auth, to log in to.
package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/gocql/gocql"
)

var passed, failed int

func check(name string, err error) {
	if err != nil {
		failed++
		fmt.Printf("FAIL - %s: %v\n", name, err)
		return
	}
	passed++
	fmt.Printf("ok - %s\n", name)
}

func session(host string, port, version int, keyspace string) (*gocql.Session, error) {
	c := gocql.NewCluster(host)
	c.Port = port
	c.ProtoVersion = version
	c.Keyspace = keyspace
	c.Timeout = 10 * time.Second
	c.ConnectTimeout = 10 * time.Second
	return c.CreateSession()
}

func main() {
	host := os.Args[1]
	port, _ := strconv.Atoi(os.Args[2])

	s, err := session(host, port, 4, "")
	check("connects_on_protocol_v4", err)
	if err != nil {
		fmt.Printf("gocql: %d passed, %d failed\n", passed, failed)
		os.Exit(1)
	}
	check("creates_a_keyspace_and_a_table", func() error {
		if err := s.Query(`CREATE KEYSPACE gk WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`).Exec(); err != nil {
			return err
		}
		return s.Query(`CREATE TABLE gk.msgs (room text, id timeuuid, body text, PRIMARY KEY (room, id)) WITH CLUSTERING ORDER BY (id DESC)`).Exec()
	}())
	s.Close()

	for _, v := range []int{3, 4} {
		ks, err := session(host, port, v, "gk")
		name := fmt.Sprintf("v%d", v)
		check("connects_to_a_keyspace_on_"+name, err)
		if err != nil {
			continue
		}
		room := "room-" + name
		check("prepared_inserts_and_a_read_back_on_"+name, func() error {
			for i := 0; i < 120; i++ {
				if err := ks.Query(`INSERT INTO msgs (room, id, body) VALUES (?, ?, ?)`,
					room, gocql.TimeUUID(), fmt.Sprintf("m%d", i)).Exec(); err != nil {
					return err
				}
			}
			var n int
			if err := ks.Query(`SELECT count(*) FROM msgs WHERE room = ?`, room).Scan(&n); err != nil {
				return err
			}
			if n != 120 {
				return fmt.Errorf("count %d, want 120", n)
			}
			return nil
		}())
		check("pages_through_rows_on_"+name, func() error {
			iter := ks.Query(`SELECT body FROM msgs WHERE room = ?`, room).PageSize(50).Iter()
			var body string
			n := 0
			for iter.Scan(&body) {
				n++
			}
			if err := iter.Close(); err != nil {
				return err
			}
			if n != 120 {
				return fmt.Errorf("%d rows, want 120", n)
			}
			return nil
		}())
		check("lwt_reports_applied_on_"+name, func() error {
			m := map[string]interface{}{}
			applied, err := ks.Query(`INSERT INTO msgs (room, id, body) VALUES (?, ?, ?) IF NOT EXISTS`,
				"lwt-"+name, gocql.TimeUUID(), "x").MapScanCAS(m)
			if err != nil {
				return err
			}
			if !applied {
				return fmt.Errorf("not applied")
			}
			return nil
		}())
		check("batches_apply_on_"+name, func() error {
			b := ks.NewBatch(gocql.LoggedBatch)
			for i := 0; i < 5; i++ {
				b.Query(`INSERT INTO msgs (room, id, body) VALUES (?, ?, ?)`, "batch-"+name, gocql.TimeUUID(), "b")
			}
			if err := ks.ExecuteBatch(b); err != nil {
				return err
			}
			var n int
			if err := ks.Query(`SELECT count(*) FROM msgs WHERE room = ?`, "batch-"+name).Scan(&n); err != nil {
				return err
			}
			if n != 5 {
				return fmt.Errorf("count %d, want 5", n)
			}
			return nil
		}())
		check("errors_carry_cassandras_message_on_"+name, func() error {
			err := ks.Query(`SELECT * FROM no_such_table`).Exec()
			if err == nil || err.Error() != "table no_such_table does not exist" {
				return fmt.Errorf("got %v", err)
			}
			return nil
		}())
		ks.Close()
	}
	if len(os.Args) > 3 {
		authPort, _ := strconv.Atoi(os.Args[3])
		login := func(user, password string) (*gocql.Session, error) {
			c := gocql.NewCluster(host)
			c.Port = authPort
			c.ProtoVersion = 4
			c.Timeout = 10 * time.Second
			c.ConnectTimeout = 10 * time.Second
			c.Authenticator = gocql.PasswordAuthenticator{Username: user, Password: password}
			return c.CreateSession()
		}
		check("logs_in_with_the_password_authenticator", func() error {
			s, err := login("cassandra", "cassandra")
			if err != nil {
				return err
			}
			defer s.Close()
			var role string
			return s.Query(`SELECT role FROM system_auth.roles WHERE role = 'cassandra'`).Scan(&role)
		}())
		check("a_wrong_password_is_refused_with_cassandras_message", func() error {
			s, err := login("cassandra", "wrong")
			if err == nil {
				s.Close()
				return fmt.Errorf("logged in")
			}
			if !strings.Contains(err.Error(), "Provided username cassandra and/or password are incorrect") {
				return fmt.Errorf("got %v", err)
			}
			return nil
		}())
	}
	fmt.Printf("gocql: %d passed, %d failed\n", passed, failed)
	if failed > 0 {
		os.Exit(1)
	}
}
