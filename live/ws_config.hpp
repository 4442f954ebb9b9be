// websocketpp's configuration for the live view (private to live_server.cpp; C++17 only, as
// websocketpp 0.8.2 is).
//
// websocketpp's stock asio config locks a mutex around each connection's state and runs every
// connection on an asio strand, for endpoints driven from several threads. The live view's
// endpoint is driven from its one live thread (everything else posts to it), so this config
// drops both: concurrency::none and enable_multithreading = false.
#pragma once

#include <websocketpp/concurrency/none.hpp>
#include <websocketpp/config/asio_no_tls.hpp>
#include <websocketpp/server.hpp>

namespace robot_edge::live {

struct WsConfig : websocketpp::config::asio {
  typedef WsConfig type;
  typedef websocketpp::config::asio base;

  typedef websocketpp::concurrency::none concurrency_type;
  typedef base::request_type request_type;
  typedef base::response_type response_type;
  typedef base::message_type message_type;
  typedef base::con_msg_manager_type con_msg_manager_type;
  typedef base::endpoint_msg_manager_type endpoint_msg_manager_type;
  typedef websocketpp::log::basic<concurrency_type, websocketpp::log::alevel> alog_type;
  typedef websocketpp::log::basic<concurrency_type, websocketpp::log::elevel> elog_type;
  typedef base::rng_type rng_type;
  static const bool enable_multithreading = false;

  struct transport_config : public base::transport_config {
    typedef type::concurrency_type concurrency_type;
    typedef type::alog_type alog_type;
    typedef type::elog_type elog_type;
    typedef type::request_type request_type;
    typedef type::response_type response_type;
    typedef websocketpp::transport::asio::basic_socket::endpoint socket_type;
    static const bool enable_multithreading = false;
  };
  typedef websocketpp::transport::asio::endpoint<transport_config> transport_type;
};

using WsServer = websocketpp::server<WsConfig>;
using WsConnectionPtr = WsServer::connection_ptr;
using WsMessage = WsConfig::message_type;
using WsMessagePtr = WsMessage::ptr;

}  // namespace robot_edge::live
