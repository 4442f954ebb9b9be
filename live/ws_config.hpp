// websocketpp's configurations for the live view (private to live/'s server files; C++17 only, as
// websocketpp 0.8.2 is): WsConfig serves http and ws, WssConfig https and wss (LiveOptions::tls).
// The server (server_impl.hpp) is one class template over them.
//
// websocketpp's stock asio configs lock a mutex around each connection's state and run every
// connection on an asio strand, for endpoints driven from several threads. The live view's
// endpoint is driven from its one live thread (everything else posts to it), so these configs
// drop both: concurrency::none and enable_multithreading = false.
#pragma once

#include <type_traits>
#include <websocketpp/concurrency/none.hpp>
#include <websocketpp/config/asio.hpp>
#include <websocketpp/server.hpp>

namespace robot_edge::live {

// `Base`: websocketpp::config::asio or asio_tls; `Socket`: its socket policy.
template <class Base, class Socket, bool kTlsConfig>
struct LiveWsConfig : Base {
  typedef LiveWsConfig type;
  typedef Base base;
  static constexpr bool kTls = kTlsConfig;

  typedef websocketpp::concurrency::none concurrency_type;
  typedef typename base::request_type request_type;
  typedef typename base::response_type response_type;
  typedef typename base::message_type message_type;
  typedef typename base::con_msg_manager_type con_msg_manager_type;
  typedef typename base::endpoint_msg_manager_type endpoint_msg_manager_type;
  typedef websocketpp::log::basic<concurrency_type, websocketpp::log::alevel> alog_type;
  typedef websocketpp::log::basic<concurrency_type, websocketpp::log::elevel> elog_type;
  typedef typename base::rng_type rng_type;
  static const bool enable_multithreading = false;

  struct transport_config : public base::transport_config {
    typedef typename type::concurrency_type concurrency_type;
    typedef typename type::alog_type alog_type;
    typedef typename type::elog_type elog_type;
    typedef typename type::request_type request_type;
    typedef typename type::response_type response_type;
    typedef Socket socket_type;
    static const bool enable_multithreading = false;
    // A TLS connection's close waits for the peer's close_notify, which Node's ws (and others)
    // never send: 1 s, not websocketpp's 5 s, during which the socket still counts in the cap.
    static const long timeout_socket_shutdown = 1000;
  };
  typedef websocketpp::transport::asio::endpoint<transport_config> transport_type;
};

using WsConfig = LiveWsConfig<websocketpp::config::asio,
                              websocketpp::transport::asio::basic_socket::endpoint, false>;
using WssConfig = LiveWsConfig<websocketpp::config::asio_tls,
                               websocketpp::transport::asio::tls_socket::endpoint, true>;

// Frames prepared once and shared by every subscriber (Publish): the same type for both.
using WsMessage = WsConfig::message_type;
using WsMessagePtr = WsMessage::ptr;
static_assert(std::is_same_v<WsMessage, WssConfig::message_type>);

}  // namespace robot_edge::live
